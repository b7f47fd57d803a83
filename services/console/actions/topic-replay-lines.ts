import { ValidationError } from '../../../shared/errors/index.js';
import { parseSince, type ReplaySince, type TopicReplayReport } from '../../../shared/operations/operator-actions.js';

/** The topic replay's start as the page sent it, or a 400 saying what is accepted. */
export function parseSinceOrThrow(text: string): ReplaySince {
  const since = parseSince(text);
  if (!since)
    throw new ValidationError('since must be a date (YYYY-MM-DD, UTC) or an offset', { details: { field: 'since' } });
  return since;
}

/** The report as the job's lines: what was read, what matched, and per key what was (or would be) replayed. */
export function topicReplayLines(report: TopicReplayReport): string[] {
  const verb = report.dryRun ? 'would replay' : 'replayed';
  const lines = [
    `scanned ${report.scanned} dead letters on the topic; ${report.matched} matched; ${verb} ${report.dryRun ? report.replayable : report.replayed}`,
  ];
  for (const [key, c] of Object.entries(report.byKey))
    lines.push(
      `${key}: matched ${c.matched}, ${verb} ${report.dryRun ? c.matched - c.notReplayable : c.replayed}, not replayable ${c.notReplayable}`,
    );
  if (report.duplicates > 0) lines.push(`${report.duplicates} letters were of an entry already seen (sent once)`);
  return lines;
}
