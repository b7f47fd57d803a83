import { createUsersTable } from '../../../shared/tables/index.js';
import { applyRetention, RAW_LOCATION_KEYS } from '../../deletion/retention.js';
import { fail, type Session } from '../session.js';

/**
 * `itinera retention [--days N] [--dry-run]`: removes raw location entries older than `retention.raw_location_days`
 * (or N) days, of every user (services/deletion/retention.ts); trips, places and labels stay. Run it daily (cron,
 * a Kubernetes CronJob): each run only finds the day that crossed the age. With --dry-run it counts what would go.
 */
export async function retention(s: Session, daysOption: string | undefined, dryRun: boolean): Promise<number> {
  const days = daysOption === undefined ? s.config.retention.rawLocationDays : Number(daysOption);
  if (!Number.isFinite(days) || days < 0) fail('retention --days needs a number of days');
  if (days === 0) {
    process.stdout.write('retention is off (retention.raw_location_days is 0 in conf/storage/servers.conf)\n');
    return 0;
  }
  const beforeTs = Date.now() / 1000 - days * 86_400;
  const users = (async function* () {
    for await (const user of createUsersTable(s.cql, { cacheEntries: 1 }).all()) yield user.uuid;
  })();
  const report = await applyRetention(s.cql, users, { beforeTs, dryRun });
  const cutoff = new Date(beforeTs * 1000).toISOString();
  for (const key of RAW_LOCATION_KEYS)
    process.stdout.write(
      `${key}\t${report.entries[key] ?? 0} entries written before ${cutoff}${dryRun ? ' would go' : ' removed'}\n`,
    );
  process.stdout.write(`${report.users} users looked at${dryRun ? ' (dry run: nothing removed)' : ''}\n`);
  return 0;
}
