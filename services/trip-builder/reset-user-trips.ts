import type { RebuildResult, UserResetPlan } from '../../shared/operations/operator-actions.js';
import { planRebuild } from './domain/timeline/rebuild-window.js';
import { rebuildUser, type RebuildDeps } from './rebuild-user.js';

/**
 * `reset-pipeline -u`: what a rebuild of one user's trips from `fromTs` (or from the start, when undefined) will
 * replace. The raw timeseries is never touched; only what the trip builder derived from it.
 */
export async function planUserReset(
  deps: Pick<RebuildDeps, 'trips'>,
  userId: string,
  fromTs: number | undefined,
): Promise<UserResetPlan> {
  const resume = await deps.trips.resumePoint(userId);
  const window = planRebuild(resume, await deps.trips.indexFrom(userId, -Infinity), fromTs ?? -Infinity);
  const replaced = await deps.trips.indexFrom(userId, window.fromTs);
  return { fromTs: window.fromTs, tripsReplaced: replaced.length };
}

/** Rebuilds the user's trips, diary, documents and metrics from the window the date falls in, at once. */
export function resetUserTrips(deps: RebuildDeps, userId: string, fromTs: number | undefined): Promise<RebuildResult> {
  return rebuildUser(deps, userId, fromTs ?? -Infinity);
}
