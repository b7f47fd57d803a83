import type { PlaceAnchor } from '../cleaning/cleaned-trip.js';
import type { ResumePoint } from './build-trips.js';

/** What the builder remembers of a stored trip to plan a rebuild. */
export interface StoredTripAnchor {
  rawStartTs: number;
  placeBefore: PlaceAnchor | undefined;
}

/** The window to rebuild: observations with ts ≥ fromTs, starting at `place`; stored trips from fromTs on are replaced. */
export interface RebuildWindow {
  fromTs: number;
  place: PlaceAnchor | undefined;
}

const EVERYTHING: RebuildWindow = { fromTs: -Infinity, place: undefined };

/**
 * Plans the rebuild for new observations whose earliest ts is `earliestNewTs`. Data after the resume point only
 * extends the open trip or place: the build continues from the resume point. Data before it (a late push, a phone
 * that was offline, out-of-order entries) re-opens the window from the first fix of the stored trip it falls in
 * or after, since that trip and everything later may change. `trips` are the user's stored trips, any order.
 */
export function planRebuild(
  resume: ResumePoint | undefined,
  trips: readonly StoredTripAnchor[],
  earliestNewTs: number,
): RebuildWindow {
  if (!resume) return EVERYTHING;
  if (earliestNewTs >= resume.fromTs) return { fromTs: resume.fromTs, place: resume.place };
  let touched: StoredTripAnchor | undefined;
  for (const t of trips)
    if (t.rawStartTs <= earliestNewTs && (!touched || t.rawStartTs > touched.rawStartTs)) touched = t;
  return touched ? { fromTs: touched.rawStartTs, place: touched.placeBefore } : EVERYTHING;
}
