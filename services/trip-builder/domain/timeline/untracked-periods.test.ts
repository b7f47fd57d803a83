import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sharedDataDir } from '../../../../test/helpers/shared-data.js';
import { haversine } from '../geo.js';
import { type TimeseriesLike, toObservations } from '../observations.js';
import { buildTrips } from './build-trips.js';
import { untrackedBetween, withUntrackedPeriods } from './untracked-periods.js';

const jack = JSON.parse(
  readFileSync(join(sharedDataDir(), 'emission-labels', 'jack_untracked_time_2023-03-12.json'), 'utf8'),
) as TimeseriesLike[];
const { trips } = buildTrips(toObservations(jack), undefined);

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
});
