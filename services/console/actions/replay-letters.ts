import type { z } from 'zod';
import type { DeadLetter, ErrorTimeseries } from '../../../shared/timeseries/index.js';
import type { OperatorActions, ReplayReport } from '../../../shared/operations/operator-actions.js';
import type { DeadLetterRef } from '../api/schemas.js';
import type { JobProgress } from '../jobs/job-registry.js';
import type { UserFilter } from '../scope/participant-scope.js';

type Ref = z.infer<typeof DeadLetterRef>;

/** The error table seen through a selection: the replay reads and re-reads only the chosen letters. */
function selected(errors: ErrorTimeseries, refs: readonly Ref[]): ErrorTimeseries {
  async function* all(): AsyncGenerator<DeadLetter> {
    for (const r of refs) {
      const letter = await errors.get(r.userId, r.key, r.writeTs, r.type);
      if (letter) yield letter;
    }
  }
  return { ...errors, all };
}

/**
 * The error table seen through a scope: the letters of the participants `visible` keeps. Identities are read to find
 * them, and only their letters whole, so a program's replay never reads another program's payloads.
 */
function visibleOnly(errors: ErrorTimeseries, visible: (userId: string) => boolean): ErrorTimeseries {
  async function* all(): AsyncGenerator<DeadLetter> {
    for await (const r of errors.refs()) {
      if (!visible(r.user_id)) continue;
      const letter = await errors.get(r.user_id, r.key, r.write_ts, r.type);
      if (letter) yield letter;
    }
  }
  return { ...errors, all };
}

export function reportLines(report: ReplayReport): string[] {
  const lines = Object.entries(report.byKey).map(
    ([key, c]) => `${key}: replayed ${c.replayed}, moved ${c.moved}, still failing ${c.stillFailing}`,
  );
  if (report.notReplayable > 0) lines.push(`${report.notReplayable} cannot be replayed (no phone entry kept)`);
  if (!report.caughtUp) lines.push('the converter did not catch up in time: counts are provisional');
  if (lines.length === 0) lines.push('nothing to replay');
  return lines;
}

/** Which letters a replay sends: a selection, or all of them, of the participants `visible` keeps when given. */
export type LetterChoice = { selection: readonly Ref[] } | { all: true; visible: UserFilter };

/**
 * "Replay" on the dead-letters page: the chosen letters (or all) go back through the converter exactly as
 * `itinera fix-usercache-processing` sends them, and the job ends with what moved and what still fails.
 */
export function createLetterReplays(deps: {
  errors: ErrorTimeseries;
  actions: Pick<OperatorActions, 'replayDeadLetters'>;
}) {
  return async (choice: LetterChoice, total: number, p: JobProgress): Promise<string[]> => {
    const errors =
      'selection' in choice
        ? selected(deps.errors, choice.selection)
        : choice.visible
          ? visibleOnly(deps.errors, choice.visible)
          : deps.errors;
    p.progress(0, 'selection' in choice ? choice.selection.length : total);
    const report = await deps.actions.replayDeadLetters(errors, (sent) => p.progress(sent));
    return reportLines(report);
  };
}
