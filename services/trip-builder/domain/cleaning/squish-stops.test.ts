import { describe, expect, it } from 'vitest';
import { MotionType } from '../../../../shared/events/emission-enums.js';
import { fixAt, northOf } from '../../../../test/helpers/trip-builder/fixes.js';
import type { LocationPoint } from '../observations.js';
import { stopBetween } from './clean-trip.js';
import type { CleanedSection } from './cleaned-trip.js';
import { squishStops } from './squish-stops.js';

/** A section of `n` points 30 s apart from `ts`, `step` m apart northward from `from` m. */
function section(mode: number, ts: number, from: number, n: number, step: number): CleanedSection {
  const times = Array.from({ length: n }, (_, i) => ts + 30 * i);
  const coordinates = times.map((_, i) => [...northOf(from + step * i)] as [number, number]);
  const distances = times.map((_, i) => (i === 0 ? 0 : step));
  return {
    startTs: times[0]!,
    endTs: times.at(-1)!,
    startLoc: northOf(from),
    endLoc: northOf(from + step * (n - 1)),
    duration: times.at(-1)! - times[0]!,
    distance: step * (n - 1),
    mode,
    times,
    coordinates,
    speeds: distances.map((d) => d / 30),
    distances,
  };
}

/** The trip's fixes: one at every point of each section, as the phone reported them. */
const fixesOf = (...sections: CleanedSection[]): LocationPoint[] =>
  sections.flatMap((s) => s.times.map((ts, i) => ({ ...fixAt(ts, 0), loc: s.coordinates[i]! })));

describe('squishStops (clean_and_resample.squish_stop)', () => {
  it('gives a gap after a sparse bus ride to the ride: it ends where the dense walk starts, one point and the gap longer', () => {
    const bus = section(MotionType.IN_VEHICLE, 1000, 0, 5, 1000);
    const walk = section(MotionType.ON_FOOT, 1240, 4300, 6, 40);
    const stop = stopBetween(bus, walk);
    squishStops([bus, walk], [stop], fixesOf(bus, walk));
    expect(bus).toMatchObject({ endTs: 1240, endLoc: walk.startLoc, distance: expect.closeTo(4300, 6), duration: 240 });
    expect(bus.times.at(-1)).toBe(1240);
    expect(bus.coordinates.at(-1)).toEqual([...walk.startLoc]);
    expect(bus.distances.at(-1)).toBeCloseTo(300, 6);
    expect(bus.speeds.at(-1)).toBeCloseTo(300 / 120, 6);
    expect(new Set([bus.times.length, bus.coordinates.length, bus.distances.length, bus.speeds.length]).size).toBe(1);
    expect(walk).toMatchObject({ startTs: 1240, distance: 200 });
    expect(stop).toMatchObject({ enterTs: 1240, exitTs: 1240, enterLoc: walk.startLoc, duration: 0, distance: 0 });
  });

  it('gives a gap before a sparse bus ride to the ride: it starts where the dense walk ended', () => {
    const walk = section(MotionType.ON_FOOT, 1000, 0, 6, 40);
    const bus = section(MotionType.IN_VEHICLE, 1300, 500, 5, 1000);
    const stop = stopBetween(walk, bus);
    squishStops([walk, bus], [stop], fixesOf(walk, bus));
    expect(bus).toMatchObject({
      startTs: 1150,
      startLoc: walk.endLoc,
      distance: expect.closeTo(4300, 6),
      duration: 270,
    });
    expect(bus.times.slice(0, 2)).toEqual([1150, 1300]);
    expect(bus.distances.slice(0, 3)).toEqual([0, expect.closeTo(300, 6), 1000]);
    expect(bus.speeds.slice(0, 2)).toEqual([0, expect.closeTo(300 / 150, 6)]);
    expect(walk).toMatchObject({ endTs: 1150, distance: 200 });
    expect(stop).toMatchObject({ enterTs: 1150, exitTs: 1150, duration: 0, distance: 0 });
  });

  it('leaves a stop within the stop radius alone: the user stood there', () => {
    const bus = section(MotionType.IN_VEHICLE, 1000, 0, 5, 1000);
    const walk = section(MotionType.ON_FOOT, 1240, 4100, 6, 40);
    const stop = stopBetween(bus, walk);
    const before = structuredClone({ bus, walk, stop });
    squishStops([bus, walk], [stop], fixesOf(bus, walk));
    expect({ bus, walk, stop }).toEqual(before);
  });
});
