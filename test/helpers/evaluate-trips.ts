import { haversine, type LonLat } from '../../services/trip-builder/domain/geo.js';
import type { BuiltTrip } from '../../services/trip-builder/domain/timeline/build-trips.js';

/** The acceptance: a trip matches when its start and end are within 60 s and 100 m of a ground-truth trip. */
export const MATCH_TIME_S = 60;
export const MATCH_DISTANCE_M = 100;

export interface ReferenceTrip {
  startTs: number;
  endTs: number;
  startLoc: LonLat;
  endLoc: LonLat;
  modes: string[];
}

export interface DayScore {
  expected: number;
  returned: number;
  /** Ground-truth trips with a matching returned trip. */
  matchedExpected: number;
  /** Returned trips that match a ground-truth trip. */
  matchedReturned: number;
  /** Matched trips whose section count and sensed modes equal the ground truth's. */
  sameSections: number;
}

export function matches(
  t: { startTs: number; endTs: number; startLoc: LonLat; endLoc: LonLat },
  r: ReferenceTrip,
): boolean {
  return (
    Math.abs(t.startTs - r.startTs) <= MATCH_TIME_S &&
    Math.abs(t.endTs - r.endTs) <= MATCH_TIME_S &&
    haversine(t.startLoc, r.startLoc) <= MATCH_DISTANCE_M &&
    haversine(t.endLoc, r.endLoc) <= MATCH_DISTANCE_M
  );
}

export function scoreDay(
  built: readonly (BuiltTrip & { modeNames: string[] })[],
  expected: readonly ReferenceTrip[],
): DayScore {
  let matchedExpected = 0;
  let sameSections = 0;
  for (const r of expected) {
    const m = built.find((t) => matches(t, r));
    if (!m) continue;
    matchedExpected++;
    if (m.modeNames.length === r.modes.length && m.modeNames.every((x, i) => x === r.modes[i])) sameSections++;
  }
  const matchedReturned = built.filter((t) => expected.some((r) => matches(t, r))).length;
  return { expected: expected.length, returned: built.length, matchedExpected, matchedReturned, sameSections };
}
