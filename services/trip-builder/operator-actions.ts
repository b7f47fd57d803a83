import type { OperatorActions } from '../../shared/operations/operator-actions.js';
import type { RebuildDeps } from './rebuild-user.js';
import { planUserReset, resetUserTrips } from './reset-user-trips.js';

/** The trip builder's part of the operators' actions: planning and running a reset of one user's trips. */
export function tripBuilderOperatorActions(
  deps: RebuildDeps,
): Pick<OperatorActions, 'planUserReset' | 'resetUserTrips'> {
  return {
    planUserReset: (userId, fromTs) => planUserReset(deps, userId, fromTs),
    resetUserTrips: (userId, fromTs) => resetUserTrips(deps, userId, fromTs),
  };
}
