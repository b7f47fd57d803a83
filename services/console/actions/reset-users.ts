import pLimit from 'p-limit';
import type { z } from 'zod';
import type { OperatorActions } from '../../../shared/operations/operator-actions.js';
import type { ResetPlan, ResetRequest } from '../api/schemas.js';
import type { JobProgress } from '../jobs/job-registry.js';
import type { UserFilter } from '../scope/participant-scope.js';

type Request = z.infer<typeof ResetRequest>;

/** Users rebuilt at once when everyone is reset: the trip builder workers keep running beside it. */
const USERS_AT_ONCE = 2;
/** Users whose plan a dry run of "everyone" reads before it only counts the rest. */
const PLANNED_USERS_SHOWN = 20;

export interface ResetDeps {
  actions: Pick<OperatorActions, 'planUserReset' | 'resetUserTrips'>;
  /** Every participant's uuid (the console's index). */
  everyone: () => string[];
}

const fromTsOf = (from: string | undefined) => (from ? Date.parse(`${from}T00:00:00Z`) / 1000 : undefined);

/**
 * Reset from the console: one user's trips, or everyone's, rebuilt from the raw timeseries from a date on (the start
 * without one), as `itinera reset-pipeline -u` does for one. "Everyone" rebuilds user by user, so it needs no stopped
 * workers and no rewound consumer group (unlike `reset-pipeline -a`) and shows its progress in users; with `visible`
 * (a program's admin) "everyone" is every participant it keeps. The caller checks a single user's scope.
 */
export function createUserResets(deps: ResetDeps) {
  const users = (r: Request, visible: UserFilter) =>
    r.userId ? [r.userId] : visible ? deps.everyone().filter(visible) : deps.everyone();
  return {
    async plan(r: Request, visible?: UserFilter): Promise<z.infer<typeof ResetPlan>> {
      const fromTs = fromTsOf(r.from);
      const all = users(r, visible);
      const lines: string[] = [];
      for (const userId of all.slice(0, PLANNED_USERS_SHOWN)) {
        const p = await deps.actions.planUserReset(userId, fromTs);
        lines.push(`${userId}: replacing ${p.tripsReplaced} trips`);
      }
      if (all.length > PLANNED_USERS_SHOWN) lines.push(`… and ${all.length - PLANNED_USERS_SHOWN} more participants`);
      if (all.length === 0) lines.push('no participant to rebuild');
      return { scope: r.userId ? 'user' : 'all', from: r.from ?? 'the start', lines };
    },
    async run(r: Request, p: JobProgress, visible?: UserFilter): Promise<string[]> {
      const fromTs = fromTsOf(r.from);
      const all = users(r, visible);
      const limit = pLimit(USERS_AT_ONCE);
      let done = 0;
      let trips = 0;
      p.progress(0, all.length);
      await Promise.all(
        all.map((userId) =>
          limit(async () => {
            const result = await deps.actions.resetUserTrips(userId, fromTs);
            trips += result.trips;
            done += 1;
            p.progress(done, all.length);
            if (all.length === 1) p.line(`days rewritten: ${result.days.join(' ') || 'none'}`);
          }),
        ),
      );
      return [`rebuilt ${trips} trips of ${done} participant${done === 1 ? '' : 's'}`];
    },
  };
}
