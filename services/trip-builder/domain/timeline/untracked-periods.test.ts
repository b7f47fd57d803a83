import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emissionFixturesDir } from '../../../../test/helpers/fixtures.js';
import { MotionType, State, Transition } from '../../../../shared/events/emission-enums.js';
import { haversine } from '../../../../shared/geo/geo.js';
import { type LocationPoint, type MotionPoint, type TimeseriesLike, toObservations } from '../observations.js';
import { fixAt, northOf } from '../../../../test/helpers/trip-builder/fixes.js';
import { buildTrips } from './build-trips.js';
import { untrackedBetween, withUntrackedPeriods } from './untracked-periods.js';

const jack = JSON.parse(
  readFileSync(join(emissionFixturesDir(), 'emission-labels', 'jack_untracked_time_2023-03-12.json'), 'utf8'),
) as TimeseriesLike[];
const { trips } = buildTrips(toObservations(jack), undefined);

// Synthetic days for untracked time: fixes 29 s apart (the dwell check wants its five-minute window to reach back
// more than 270 s), drives of 10 m/s with IN_VEHICLE readings every minute, stops of ten minutes.
const every = (from: number, to: number, at: (ts: number) => number) =>
  Array.from({ length: Math.floor((to - from) / 29) + 1 }, (_, k) => fixAt(from + 29 * k, at(from + 29 * k)));
const drive = (from: number, to: number): MotionPoint[] =>
  Array.from({ length: Math.floor((to - from) / 60) + 1 }, (_, k) => ({
    ts: from + 60 * k,
    type: MotionType.IN_VEHICLE,
    confidence: 100,
  }));
const booted = { ts: 1500, state: State.START, transition: Transition.BOOTED };
/**
 * The trips of a day that starts with a drive to 5,800 m (0-580 s) and ten minutes parked there, then the phone
 * rebooting at each of `reboots`, then the fixes `then` with a drive's motion over `driving`.
 */
const afterParking = (then: LocationPoint[], driving: [number, number], reboots = [booted.ts]) =>
  buildTrips(
    {
      locations: [...every(0, 580, (ts) => 10 * ts), ...every(609, 1218, () => 5800), ...then],
      motions: [...drive(0, 580), ...drive(...driving)],
      transitions: reboots.map((ts) => ({ ...booted, ts })),
    },
    undefined,
  ).trips;

describe('untracked periods', () => {
  it('When the user reappears far away after a slow gap, then only the trip after it is flagged as following untracked time', () => {
    expect(trips.filter((t) => t.afterUntracked).length).toBe(1);
    expect(trips[0]!.afterUntracked).toBeUndefined();
  });

  it('When the trips are listed for the diary, then the untracked period stands between the two trips, from the end of one to the start of the next', () => {
    const moves = withUntrackedPeriods(trips);
    expect(moves.length).toBe(trips.length + 1);
    const at = moves.findIndex((m) => m.untracked);
    const [before, period, after] = [moves[at - 1]!, moves[at]!, moves[at + 1]!];
    expect(after.afterUntracked).toBe(true);
    expect(period).toEqual(untrackedBetween(before, after));
    expect(period.startTs).toBe(before.endTs);
    expect(period.endTs).toBe(after.startTs);
    expect(period.distance).toBeCloseTo(haversine(before.endLoc, after.startLoc));
    expect(period.sections).toEqual([]);
  });

  it('When the trip after untracked time is the first one listed, then no period is invented without the trip before it', () => {
    const from = trips.findIndex((t) => t.afterUntracked);
    expect(withUntrackedPeriods(trips.slice(from)).some((m) => m.untracked)).toBe(false);
  });

  it('When the phone rebooted during a stop and the user set off again from the same spot, then the untracked time is squished: no period, and the trip starts 30 s early at the place', () => {
    // e-mission's _is_squished_untracked: a drive, ten minutes parked, a reboot, then a drive from 20 m away.
    /** The two drives and stops; the second drive sets off `offset` m past where the first one parked. */
    const build = (offset: number) =>
      afterParking(
        [...every(1800, 2380, (ts) => 5800 + offset + 10 * (ts - 1800)), ...every(2409, 3018, () => 11600 + offset)],
        [1800, 2380],
      );
    const [first, second] = build(20);
    expect(second!.afterUntracked).toBeUndefined();
    expect(withUntrackedPeriods([first!, second!]).some((m) => m.untracked)).toBe(false);
    expect(second!.startTs).toBe(1800 - 30);
    expect(haversine(second!.startLoc, northOf(5800))).toBeLessThan(1);
    // Reappearing farther than 100 m away, the untracked period stands and the trip starts where it reappeared.
    const far = build(200);
    expect(far[1]!.afterUntracked).toBe(true);
    expect(far[1]!.startTs).toBe(1800);
  });

  it('When the trip right after untracked time is dropped (drift where the phone came back), then the period still stands before the next kept trip', () => {
    // A drive, parked, a reboot, the phone back 14 km away with ten minutes of drift and no motion (a trip too
    // short to keep), then a drive from there.
    const trips = afterParking(
      [
        ...every(1800, 2409, () => 20000),
        ...every(2700, 3280, (ts) => 20000 + 10 * (ts - 2700)),
        ...every(3309, 3918, () => 25800),
      ],
      [2700, 3280],
    );
    expect(trips).toHaveLength(2);
    expect(trips[1]!.afterUntracked).toBe(true);
    const moves = withUntrackedPeriods(trips);
    expect(moves.map((m) => m.untracked ?? false)).toEqual([false, true, false]);
    // The period ends where the phone reappeared; the diary shows the user at that place until the kept trip,
    // which joins it 30 s early.
    expect(moves[1]!.endTs).toBe(1800);
    expect(haversine(moves[1]!.endLoc, northOf(20000))).toBeLessThan(1);
    expect(trips[1]!.startTs).toBe(2700 - 30);
    expect(haversine(trips[1]!.startLoc, northOf(20000))).toBeLessThan(1);
  });

  it('When the phone came back far away, was dropped as drift, rebooted again and the user then set off from where they had been, then the period still stands (the earlier gap is not squished)', () => {
    const trips = afterParking(
      [
        ...every(1800, 2409, () => 20000),
        ...every(2700, 3280, (ts) => 5810 + 10 * (ts - 2700)),
        ...every(3309, 3918, () => 11610),
      ],
      [2700, 3280],
      [1500, 2500],
    );
    expect(trips).toHaveLength(2);
    expect(trips[1]!.afterUntracked).toBe(true);
    const period = withUntrackedPeriods(trips)[1]!;
    expect(period.untracked).toBe(true);
    expect(period.endTs).toBe(1800);
  });
});
