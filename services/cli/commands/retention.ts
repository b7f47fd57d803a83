import { createProgramConfigsTable, createUsersTable } from '../../../shared/tables/index.js';
import { applyRetention, RAW_LOCATION_KEYS } from '../../deletion/retention.js';
import {
  ConfigRefusal,
  parseDeploymentConfig,
  type DeploymentConfig,
} from '../../programs/domain/deployment-config.js';
import { retentionDaysOf } from '../../programs/domain/retention-days.js';
import { fail, type Session } from '../session.js';

/** Every served program's configuration that parses, by name. */
async function programConfigs(s: Session): Promise<Map<string, DeploymentConfig>> {
  const configs = new Map<string, DeploymentConfig>();
  for (const row of await createProgramConfigsTable(s.cql).latestOfEach()) {
    const config = parseDeploymentConfig(row.document);
    if (!(config instanceof ConfigRefusal)) configs.set(row.program, config);
  }
  return configs;
}

/**
 * `itinera retention [--days N] [--dry-run]`: removes raw location entries older than their age, of every user
 * (services/deletion/retention.ts); trips, places and labels stay. The age is the participant's program's
 * `itinera.raw_location_days`, else `retention.raw_location_days`; `--days N` sets it for everyone. Run it daily
 * (cron, a Kubernetes CronJob): each run only finds the day that crossed the age. With --dry-run it counts.
 */
export async function retention(s: Session, daysOption: string | undefined, dryRun: boolean): Promise<number> {
  const override = daysOption === undefined ? undefined : Number(daysOption);
  if (override !== undefined && (!Number.isFinite(override) || override < 0))
    fail('retention --days needs a number of days');
  const programs = override === undefined ? await programConfigs(s) : new Map<string, DeploymentConfig>();
  const deploymentDays = override ?? s.config.retention.rawLocationDays;
  // Users grouped by their age (0: kept), so each group is one pass with one cut-off.
  const byDays = new Map<number, string[]>();
  for await (const user of createUsersTable(s.cql, { cacheEntries: 1 }).all()) {
    const days = retentionDaysOf(user.userEmail, programs, deploymentDays);
    const group = byDays.get(days) ?? [];
    group.push(user.uuid);
    byDays.set(days, group);
  }
  if ([...byDays.keys()].every((d) => d === 0)) {
    process.stdout.write('retention is off (retention.raw_location_days is 0, and no program sets its own)\n');
    return 0;
  }
  for (const [days, uuids] of [...byDays].sort(([a], [b]) => a - b)) {
    if (days === 0) {
      process.stdout.write(`${uuids.length} users whose raw locations are kept (0 days)\n`);
      continue;
    }
    const beforeTs = Date.now() / 1000 - days * 86_400;
    const report = await applyRetention(s.cql, uuids, { beforeTs, dryRun });
    const cutoff = new Date(beforeTs * 1000).toISOString();
    process.stdout.write(`${report.users} users kept ${days} days${dryRun ? ' (dry run: nothing removed)' : ''}:\n`);
    for (const key of RAW_LOCATION_KEYS)
      process.stdout.write(
        `  ${key}\t${report.entries[key] ?? 0} entries written before ${cutoff}${dryRun ? ' would go' : ' removed'}\n`,
      );
  }
  return 0;
}
