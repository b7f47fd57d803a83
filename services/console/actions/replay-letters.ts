import type { z } from 'zod';
import type { DeadLetter, ErrorTimeseries } from '../../../shared/timeseries/index.js';
import { replayDeadLetters, type ReplayDeps, type ReplayReport } from '../../converter/replay-dead-letters.js';
import type { DeadLetterRef } from '../api/schemas.js';
import type { JobProgress } from '../jobs/job-registry.js';

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

export function reportLines(report: ReplayReport): string[] {
  const lines = Object.entries(report.byKey).map(
    ([key, c]) => `${key}: replayed ${c.replayed}, moved ${c.moved}, still failing ${c.stillFailing}`,
  );
  if (report.notReplayable > 0) lines.push(`${report.notReplayable} cannot be replayed (no phone entry kept)`);
  if (!report.caughtUp) lines.push('the converter did not catch up in time: counts are provisional');
  if (lines.length === 0) lines.push('nothing to replay');
  return lines;
}

/**
 * "Replay" on the dead-letters page: the chosen letters (or all) go back through the converter exactly as
 * `itinera fix-usercache-processing` sends them, and the job ends with what moved and what still fails.
 */
export function createLetterReplays(deps: Omit<ReplayDeps, 'onProgress'>) {
  return async (selection: readonly Ref[] | undefined, total: number, p: JobProgress): Promise<string[]> => {
    p.progress(0, selection ? selection.length : total);
    const report = await replayDeadLetters({
      ...deps,
      errors: selection ? selected(deps.errors, selection) : deps.errors,
      onProgress: (sent) => p.progress(sent),
    });
    return reportLines(report);
  };
}
