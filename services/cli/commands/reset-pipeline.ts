import { createLogger } from '../../../shared/logger/index.js';
import { createIdempotentProducer } from '../../../shared/kafka/index.js';
import { topicName } from '../../../shared/events/index.js';
import { createDiaryPublisher } from '../../trip-builder/diary-publisher.js';
import { composeTripBuilderStores } from '../../trip-builder/compose.js';
import { planUserReset, resetUserTrips } from '../../trip-builder/reset-user-trips.js';
import { applyReset, planReset } from '../rewind-groups.js';
import { resolveUser, type Session } from '../session.js';

/**
 * `itinera reset-pipeline -a [-d DATE]`: rewinds the pipeline's consumer groups to the date, so the running workers
 * re-convert and rebuild what follows.
 */
export async function resetAll(s: Session, date: string, dryRun: boolean): Promise<number> {
  const plans = await planReset(s.admin, s.config.kafka.topicPrefix, date);
  for (const p of plans)
    process.stdout.write(
      `${p.group} on ${p.topic}: ${p.partitions.map((x) => `${x.partition}->${x.offset}`).join(' ')}\n`,
    );
  if (dryRun) return 0;
  await applyReset(s.admin, plans);
  process.stdout.write('reset done; start `itinera intake <n>` to rebuild\n');
  return 0;
}

/**
 * `itinera reset-pipeline -u USER [-d DATE]`: the user's trips derived from the date on (from the start without
 * -d) are rebuilt now, from the raw timeseries, which is left as it is. No consumer group moves, so the other users
 * are not touched.
 */
export async function resetOneUser(s: Session, who: string, date: string, dryRun: boolean): Promise<number> {
  const userId = await resolveUser(s, who);
  const fromTs = date === '' ? undefined : Date.parse(`${date}T00:00:00Z`) / 1000;
  const stores = composeTripBuilderStores(s.cql);
  const plan = await planUserReset({ trips: stores.trips }, userId, fromTs);
  const from = Number.isFinite(plan.window.fromTs) ? new Date(plan.window.fromTs * 1000).toISOString() : 'the start';
  process.stdout.write(`user ${userId}: rebuilding from ${from}, replacing ${plan.tripsReplaced} trips\n`);
  if (dryRun) return 0;
  const producer = createIdempotentProducer(s.kafka);
  await producer.connect();
  try {
    const result = await resetUserTrips(
      {
        ...stores,
        pipelineLog: createLogger({ component: 'reset-pipeline', level: 'warn' }),
        now: () => Date.now() / 1000,
        publishDocument: createDiaryPublisher({
          producer,
          codec: s.codec,
          topic: topicName(s.config.kafka.topicPrefix, 'diary'),
        }),
      },
      userId,
      fromTs,
    );
    process.stdout.write(`rebuilt ${result.trips} trips; days rewritten: ${result.days.join(' ') || 'none'}\n`);
    return 0;
  } finally {
    await producer.disconnect();
  }
}
