import { haversine } from '../../../../shared/geo/geo.js';
import type { BuiltTrip } from './build-trips.js';

/**
 * The untracked period between two consecutive trips, when the later one began after untracked time: from the end
 * of the trip before (where the user was last seen) to where they reappeared, the start of the trip after unless
 * the phone reappeared earlier at a place left on trips too short to keep (`untrackedUntil`), as e-mission's
 * `analysis/confirmed_untracked`. Its distance is the straight line between those two points.
 */
export function untrackedBetween(before: BuiltTrip, after: BuiltTrip): BuiltTrip {
  const end = after.untrackedUntil ?? { ts: after.startTs, loc: after.startLoc };
  return {
    source: after.source,
    // Its own identity: the end of the trip before lies strictly between that trip's raw start and the next one's.
    rawStartTs: before.endTs,
    rawEndTs: end.ts,
    startTs: before.endTs,
    endTs: end.ts,
    startLoc: before.endLoc,
    endLoc: end.loc,
    duration: end.ts - before.endTs,
    distance: haversine(before.endLoc, end.loc),
    timeZone: after.timeZone,
    placeBefore: undefined,
    sections: [],
    stops: [],
    untracked: true,
  };
}

/**
 * A run of consecutive trips as the diary shows it: each trip that began after untracked time is preceded by the
 * untracked period that led to it, when the trip before it is known (the first trip of the list has none).
 */
export function withUntrackedPeriods(trips: readonly BuiltTrip[]): BuiltTrip[] {
  const moves: BuiltTrip[] = [];
  trips.forEach((trip, i) => {
    const before = trips[i - 1];
    if (trip.afterUntracked && before) moves.push(untrackedBetween(before, trip));
    moves.push(trip);
  });
  return moves;
}
