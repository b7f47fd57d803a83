import { type RebuildDeps, renderCompositeDay } from './rebuild-user.js';

/** How far from an input's start its trip may start and still be a candidate (e-mission's path B window). */
const CANDIDATE_WINDOW_S = 86_400;

/**
 * Brings a user's composite trips up to date with labels, surveys and notes that arrived (path B), without rebuilding
 * any trip: the days showing what an input can label (the trip its start falls in and the place after it, both copies)
 * are rendered again with every stored input matched afresh. Both copies of a place (the previous trip's end place, the
 * next trip's start place) are rendered from the same match. getTrips' timeline and the phone's diary documents carry
 * no labels, so they are left as they are: a label costs one composite day's render and write. Returns the days
 * rendered.
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
  const previous = await deps.trips.tripBefore(userId, inWindow[0]?.rawStartTs ?? from);
  const days = new Set<string>();
  for (const start of inputStartTimes) {
    // An input labels the trip, untracked period or place its start falls in (e-mission's first rule): the last
    // trip starting at or before it, or the place that trip reaches (and the next trip leaves), or the untracked
    // period before the next trip, which is shown with that trip.
    const at = inWindow.filter((t) => t.startTs <= start).length - 1;
    const trip = inWindow[at];
    const next = inWindow[at + 1];
    if (trip) days.add(trip.localDate);
    else if (previous) days.add(previous.localDate);
    if (next) days.add(next.localDate);
  }

  const rendered = [...days].sort();
  for (const day of rendered) await deps.trips.relabelDay(userId, day, await renderCompositeDay(deps, userId, day));
  return rendered;
}
