import type { ReplaySince, TopicReplayReport } from '../../../shared/operations/operator-actions.js';
import { sessionOperatorActions } from '../operator-actions.js';
import { sessionProducer, type Session } from '../session.js';

export interface ReplayDeadLettersArgs {
  since: ReplaySince;
  key?: string;
  reason?: string;
  dryRun: boolean;
}

/** The report as the operator reads it: totals, then per key and reason. */
export function formatTopicReplayReport(report: TopicReplayReport): string {
  const lines = [
    report.dryRun
      ? `dry run: scanned ${report.scanned}, matched ${report.matched}, would replay ${report.replayable}, not replayable ${report.notReplayable}, duplicates ${report.duplicates}`
      : `scanned ${report.scanned}, matched ${report.matched}, replayed ${report.replayed}, not replayable ${report.notReplayable}, duplicates ${report.duplicates}`,
  ];
  if (Object.keys(report.byKey).length > 0) lines.push('key\tmatched\treplayed\tnot replayable');
  for (const [key, c] of Object.entries(report.byKey)) {
    lines.push(`${key}\t${c.matched}\t${c.replayed}\t${c.notReplayable}`);
    for (const [reason, count] of Object.entries(c.reasons)) lines.push(`  ${count}\t${reason}`);
  }
  if (report.notReplayable > 0)
    lines.push(
      `${report.notReplayable} matched dead letters cannot be replayed: no phone entry (undecodable records, failed trip rebuilds) or stored without their payload`,
    );
  if (!report.dryRun && report.replayed > 0)
    lines.push(
      "the converter (`itinera intake`) converts the replayed entries; those that convert leave the error table: see 'itinera errors'",
    );
  return `${lines.join('\n')}\n`;
}

/**
 * `itinera replay-dead-letters --since <date|offset> [--key K] [--reason R] [--dry-run]`: replays dead letters from
 * the error-timeseries topic (replayDeadLetterTopic). Exit 0, or 3 when some matched letters could not be replayed.
 */
export async function replayDeadLetters(s: Session, args: ReplayDeadLettersArgs): Promise<number> {
  const producer = sessionProducer(s);
  try {
    let shown = -1;
    const actions = sessionOperatorActions(s, producer, { component: 'replay-dead-letters' });
    const report = await actions.replayDeadLetterTopic(
      {
        since: args.since,
        ...(args.key !== undefined ? { key: args.key } : {}),
        ...(args.reason !== undefined ? { reason: args.reason } : {}),
        dryRun: args.dryRun,
      },
      (done, total) => {
        // A line per tenth, not per batch.
        const tenth = total === 0 ? 10 : Math.floor((done * 10) / total);
        if (tenth === shown) return;
        shown = tenth;
        process.stderr.write(`scanned ${done} of ${total}\n`);
      },
    );
    process.stdout.write(formatTopicReplayReport(report));
    return !report.dryRun && report.notReplayable > 0 ? 3 : 0;
  } finally {
    await producer.close();
  }
}
