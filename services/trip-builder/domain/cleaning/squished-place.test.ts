import { describe, expect, it } from 'vitest';
import { MotionType } from '../../../../shared/events/emission-enums.js';
import { northOf } from '../../../../test/helpers/trip-builder/fixes.js';
import type { CleanedSection } from './cleaned-trip.js';
import { startAtDiaryPlace } from './squished-place.js';

/** A walk of three points 30 s and 40 m apart, from 1000 s at 0 m. */
function walk(): CleanedSection {
  return {
    startTs: 1000,
    endTs: 1060,
    startLoc: northOf(0),
    endLoc: northOf(80),
    duration: 60,
    distance: 80,
    mode: MotionType.ON_FOOT,
    times: [1000, 1030, 1060],
    coordinates: [0, 40, 80].map((m) => [...northOf(m)] as [number, number]),
    speeds: [0, 40 / 30, 40 / 30],
    distances: [0, 40, 40],
  };
}

describe('startAtDiaryPlace (clean_and_resample._fix_squished_place_mismatch)', () => {
  it('starts the first section 30 s earlier at the diary’s place, one point and the distance to it longer', () => {
    const first = walk();
    startAtDiaryPlace([first], northOf(-24));
    expect(first).toMatchObject({ startTs: 970, startLoc: northOf(-24), duration: 90 });
    expect(first.distance).toBeCloseTo(104, 6);
    expect(first.times).toEqual([970, 1000, 1030, 1060]);
    expect(first.coordinates[0]).toEqual([...northOf(-24)]);
    expect(first.distances).toEqual([0, expect.closeTo(24, 6), 40, 40]);
    expect(first.speeds).toEqual([0, expect.closeTo(24 / 30, 6), 40 / 30, 40 / 30]);
  });

  it('leaves a trip that starts over 100 m from the diary’s place as it is: that mismatch is real', () => {
    const first = walk();
    startAtDiaryPlace([first], northOf(-101));
    expect(first).toEqual(walk());
  });
});
