import { createTimeseriesReader } from '../../../shared/timeseries/index.js';
import { resolveUser, type Session } from '../session.js';

/** `itinera user <token or uuid>`: what the timeseries holds for one user, by key. */
export async function user(s: Session, who: string): Promise<number> {
  const uuid = await resolveUser(s, who);
  process.stdout.write(`user ${uuid}\n`);
  const counts = await createTimeseriesReader(s.cql).countByKey(uuid);
  for (const [key, n] of Object.entries(counts)) process.stdout.write(`  ${key}\t${n}\n`);
  return 0;
}
