import { tripLocalDate } from './domain/diary/trip-geojson.js';
import { type RebuildDeps, RECENT_TRIPS_SCAN, refreshUsercache, renderDay } from './rebuild-user.js';

/** How far from an input's start its trip may start and still be a candidate (e-mission's path B window). */
const CANDIDATE_WINDOW_S = 86_400;
const END_OF_TIME = 4_102_444_800; // 2100-01-01

/**
 * Brings a user's composite trips up to date with labels, surveys and notes that arrived (path B), without
 * rebuilding any trip: the days holding trips that start within a day of an input, and the day of the trip before
 * them (whose end place may be the place an input is about, or the open last place), are rendered again with every
 * stored input matched afresh. Both copies of a place (the previous trip's end place, the next trip's start
 * place) are rendered from the same match, and the phone's diary documents of those days are republished.
 * Returns the days rendered.
 */
export async function relabelUser(
  deps: RebuildDeps,
  userId: string,
  inputStartTimes: readonly number[],
): Promise<string[]> {
  if (inputStartTimes.length === 0) return [];
  const from = Math.min(...inputStartTimes) - CANDIDATE_WINDOW_S;
  const to = Math.max(...inputStartTimes) + CANDIDATE_WINDOW_S;
  const inWindow = (await deps.trips.indexFrom(userId, from)).filter((t) => t.rawStartTs <= to);
  const days = new Set(inWindow.map((t) => t.localDate));
  const { previous } = await deps.trips.neighbours(userId, inWindow[0]?.rawStartTs ?? from, END_OF_TIME);
  if (previous) days.add(tripLocalDate(previous));

  const rendered = new Map<string, unknown[]>();
  for (const day of [...days].sort()) {
    const rendering = await renderDay(deps, userId, day);
    rendered.set(day, rendering.timeline);
    await deps.trips.saveDiaryDay(userId, day, rendering);
  }
  if (rendered.size > 0)
    await refreshUsercache(deps, userId, rendered, await deps.trips.latestTrips(userId, RECENT_TRIPS_SCAN));
  return [...rendered.keys()];
}
