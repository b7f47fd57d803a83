import { sessionOperatorActions } from '../operator-actions.js';
import { applyReset, planReset } from '../rewind-groups.js';
import { resolveUser, sessionProducer, type Session } from '../session.js';

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
  const producer = sessionProducer(s);
  try {
    const actions = sessionOperatorActions(s, producer, { component: 'reset-pipeline' });
    const plan = await actions.planUserReset(userId, fromTs);
    const from = Number.isFinite(plan.fromTs) ? new Date(plan.fromTs * 1000).toISOString() : 'the start';
    process.stdout.write(`user ${userId}: rebuilding from ${from}, replacing ${plan.tripsReplaced} trips\n`);
    if (dryRun) return 0;
    const result = await actions.resetUserTrips(userId, fromTs);
    process.stdout.write(`rebuilt ${result.trips} trips; days rewritten: ${result.days.join(' ') || 'none'}\n`);
    return 0;
  } finally {
    await producer.close();
  }
}
