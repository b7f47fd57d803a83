import { createErrorTimeseries } from '../../../shared/timeseries/index.js';
import { sessionOperatorActions } from '../operator-actions.js';
import { sessionProducer, type Session } from '../session.js';

/**
 * `itinera fix-usercache-processing`: replays the error timeseries through the converter and prints, per key, how
 * many moved and how many still fail. Exit 3 while some still fail or the converter did not catch up.
 */
export async function fixUsercacheProcessing(s: Session, waitSeconds: number): Promise<number> {
  const producer = sessionProducer(s);
  try {
    const actions = sessionOperatorActions(s, producer, { waitMs: waitSeconds * 1000, component: 'fix-usercache' });
    const report = await actions.replayDeadLetters(createErrorTimeseries(s.cql), (sent) =>
      process.stdout.write(`replayed ${sent}\n`),
    );
    process.stdout.write('key\treplayed\tmoved\tstill failing\n');
    for (const [key, c] of Object.entries(report.byKey))
      process.stdout.write(`${key}\t${c.replayed}\t${c.moved}\t${c.stillFailing}\n`);
    if (report.notReplayable > 0)
      process.stdout.write(
        `${report.notReplayable} dead letters cannot be replayed: no phone entry (undecodable records, failed trip rebuilds) or stored without their payload (see 'itinera errors')\n`,
      );
    if (!report.caughtUp)
      process.stdout.write(
        'the converter did not catch up in time: is `itinera intake` running? counts are provisional\n',
      );
    const failing = Object.values(report.byKey).some((c) => c.stillFailing > 0);
    return failing || !report.caughtUp ? 3 : 0;
  } finally {
    await producer.close();
  }
}
