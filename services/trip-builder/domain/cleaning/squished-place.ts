import { haversine, type LonLat } from '../../../../shared/geo/geo.js';
import type { CleanedSection } from './cleaned-trip.js';
import { extendStart } from './extend-track.js';

/** A trip starting farther than this (m) from the diary's place keeps its own start (e-mission abandons the fix). */
const MAX_PLACE_MISMATCH_M = 100;
/** e-mission's estimate of the walk from the place to the trip's start: about 50 m at 5 km/h, rounded to 30 s. */
const PLACE_TO_START_S = 30;

/**
 * Joins a trip to the diary's place when trips dropped before it left that place elsewhere (e-mission's
 * `_fix_squished_place_mismatch`). A short trip that is dropped (GPS drift around home, a walk to the car) leaves
 * the user, for the diary, at the place before it; the next trip's start was extrapolated to the dropped trip's
 * end instead, a few metres off. So the trip starts 30 s earlier at the diary's place: its first section gains a
 * first point there, the distance to its old start, and 30 s. Farther than 100 m the mismatch is real and nothing
 * changes. Modifies the first section; the trip's start, distance and duration follow from its sections.
 */
export function startAtDiaryPlace(sections: readonly CleanedSection[], diaryLoc: LonLat): void {
  const first = sections[0];
  if (!first) return;
  const delta = haversine(first.startLoc, diaryLoc);
  if (delta > MAX_PLACE_MISMATCH_M) return;
  extendStart(first, first.startTs - PLACE_TO_START_S, diaryLoc, { distance: delta, speed: delta / PLACE_TO_START_S });
}
