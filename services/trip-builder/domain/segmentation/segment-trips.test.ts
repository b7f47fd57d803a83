import { describe, expect, it } from 'vitest';
import { MotionType, Transition, State } from '../../../../shared/events/emission-enums.js';
import { fixAt } from '../../../../test/helpers/trip-builder/fixes.js';
import type { LocationPoint, MotionPoint, Observations } from '../observations.js';
import { segmentWithDistanceFilter } from './distance-filter.js';
import { LATE_WRITE_S, segmentTrips } from './segment-trips.js';

/** Fixes every `every` s over [from, to], starting `start` m north and moving `speed` m/s. */
function run(from: number, to: number, every: number, start: number, speed: number, filter: 'time' | 'distance') {
  const out: LocationPoint[] = [];
  for (let ts = from; ts <= to; ts += every) out.push(fixAt(ts, start + speed * (ts - from), { filter }));
  return out;
}

const driving = (from: number, to: number): MotionPoint[] => {
  const out: MotionPoint[] = [];
  for (let ts = from; ts <= to; ts += 60) out.push({ ts, type: MotionType.IN_VEHICLE, confidence: 100 });
  return out;
};

describe('segmentTrips: fixes written late (Android)', () => {
  // A drive 0-1200 s whose phone held back six minutes of fixes at one spot and delivered them in a batch about 17
  // minutes late, the rest of the drive right after them (less late) and then 10 minutes at the destination. Every
  // fix is written after the ones before it in time, so none is dropped as out of order (`toObservations`).
  // (Fixes 29 s apart: the dwell check wants its five-minute window to reach back more than 270 s.)
  const before = run(0, 580, 29, 0, 10, 'time');
  const held = run(609, 957, 29, 6000, 0, 'time').map((p) => ({ ...p, writeTs: p.ts + LATE_WRITE_S }));
  const after = run(986, 1218, 29, 9860, 10, 'time').map((p, k) => ({ ...p, writeTs: 1960 + k }));
  const parked = run(1247, 1856, 29, 12500, 0, 'time').map((p) => ({ ...p, writeTs: p.ts + 800 }));
  const obs = (locations: LocationPoint[]): Observations => ({
    locations,
    motions: driving(0, 1200),
    transitions: [],
  });

  it(`leaves fixes written ${LATE_WRITE_S} s or more after they were taken out of the trip-end search, as e-mission does`, () => {
    const { trips } = segmentTrips(obs([...before, ...held, ...after, ...parked]));
    expect(trips).toHaveLength(1);
    // The held-back fixes still belong to the trip their time falls in.
    expect(trips[0]!.startIndex).toBe(0);
    expect(trips[0]!.endIndex).toBeGreaterThan(before.length + held.length + after.length - 1);
  });

  it('reads the same stand as a stop when the fixes were written on time', () => {
    const timely = held.map((p) => ({ ...p, writeTs: p.ts + LATE_WRITE_S - 1 }));
    expect(segmentTrips(obs([...before, ...timely, ...after, ...parked])).trips).toHaveLength(2);
  });
});

describe('segmentWithDistanceFilter (iOS)', () => {
  it('keeps a trip of a single fix, as e-mission does: the place after it is where that fix was', () => {
    // A walk, two hours parked, one stray fix 70 m off, twelve silent minutes without motion, then the next walk.
    const walk = run(0, 600, 60, 0, 1.5, 'distance');
    const stray = fixAt(7800, 900 + 70, { filter: 'distance' });
    const next = run(8520, 9120, 60, 1100, 1.5, 'distance');
    const motions = [
      ...walk.map((p) => ({ ts: p.ts, type: MotionType.WALKING, confidence: 100 })),
      ...next.map((p) => ({ ts: p.ts, type: MotionType.WALKING, confidence: 100 })),
    ];
    const transitions = [{ ts: 9200, state: State.WAITING_FOR_TRIP_START, transition: Transition.STOPPED_MOVING }];
    const { trips } = segmentWithDistanceFilter([...walk, stray, ...next], motions, transitions);
    expect(trips).toEqual([
      { startIndex: 0, endIndex: walk.length - 1 },
      { startIndex: walk.length, endIndex: walk.length },
      { startIndex: walk.length + 1, endIndex: walk.length + next.length },
    ]);
  });
});
