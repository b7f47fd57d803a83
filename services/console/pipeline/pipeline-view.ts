import type { z } from 'zod';
import type { Pipeline } from '../api/schemas.js';
import { inScope, type ProgramScope } from '../scope/program-scope.js';
import type { BehindUsersTracker } from './behind-users.js';
import type { PipelineMonitor } from './pipeline-monitor.js';

export interface PipelineViewDeps {
  monitor: Pick<PipelineMonitor, 'snapshot'>;
  behind: Pick<BehindUsersTracker, 'refresh' | 'current'>;
  behindHours: number;
  /** A participant's token (the participant index); the uuid is shown when none is known. */
  tokenOf: (userId: string) => string | undefined;
  onScanError: (err: unknown) => void;
}

/**
 * The pipeline page's answer: the consumer groups as last sampled, and the users whose trips lag their pushes, of
 * the programs in scope. Each answer also starts a resume-point scan unless one is recent (the tracker decides), so
 * the scan runs at most once per refresh and never inside a request.
 */
export function createPipelineView(deps: PipelineViewDeps) {
  const refresh = () => void deps.behind.refresh().catch(deps.onScanError);
  return {
    refresh,
    async answer(scope: ProgramScope): Promise<z.infer<typeof Pipeline>> {
      refresh();
      const groups = deps.monitor.snapshot();
      const b = deps.behind.current(scope === undefined ? undefined : (program) => inScope(scope, program));
      return {
        sampledAt: groups.sampledAt ?? 0,
        stalledMinutes: groups.stalledMinutes,
        groups: groups.groups,
        behind: {
          thresholdHours: deps.behindHours,
          count: b?.count ?? 0,
          users: (b?.users ?? []).map((u) => ({ ...u, token: deps.tokenOf(u.userId) ?? u.userId })),
        },
      };
    },
  };
}
