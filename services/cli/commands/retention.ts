import { createProgramConfigsTable, createUsersTable } from '../../../shared/tables/index.js';
import { applyRetention, RAW_LOCATION_KEYS } from '../../deletion/retention.js';
import {
  retentionDaysOf,
  storedRetentionDays,
  UnreadableRetention,
  type ProgramRetention,
} from '../../../shared/programs/domain/retention-days.js';
import { opcodeProgram } from '../../../shared/programs/domain/opcode.js';
import { fail, type Session } from '../session.js';

/** What every program's current document says of its raw locations, by name (read leniently: retention-days.ts). */
async function programRetention(s: Session): Promise<Map<string, ProgramRetention>> {
  const days = new Map<string, ProgramRetention>();
  for (const row of await createProgramConfigsTable(s.cql).latestOfEach())
    days.set(row.program, storedRetentionDays(row.document));
  return days;
}

/**
 * `itinera retention [--days N] [--dry-run]`: removes raw location entries older than their age, of every user
 * (services/deletion/retention.ts); trips, places and labels stay. The age is the participant's program's
 * `itinera.raw_location_days`, else `retention.raw_location_days`; `--days N` sets it for everyone. Run it daily
 * (cron, a Kubernetes CronJob): each run only finds the day that crossed the age. With --dry-run it counts. A program
 * whose days cannot be read from its stored document has its participants skipped, with a warning: applying the
 * deployment's days could remove what the program promised to keep.
 */
export async function retention(s: Session, daysOption: string | undefined, dryRun: boolean): Promise<number> {
  const override = daysOption === undefined ? undefined : Number(daysOption);
  if (override !== undefined && (!Number.isFinite(override) || override < 0))
    fail('retention --days needs a number of days');
  const programs = override === undefined ? await programRetention(s) : new Map<string, ProgramRetention>();
  const deploymentDays = override ?? s.config.retention.rawLocationDays;
  // Users grouped by their age (0: kept), so each group is one pass with one cut-off.
  const byDays = new Map<number, string[]>();
  const skipped = new Map<string, { reason: string; users: number }>();
  for await (const user of createUsersTable(s.cql, { cacheEntries: 1 }).all()) {
    const days = retentionDaysOf(user.userEmail, programs, deploymentDays);
    if (days instanceof UnreadableRetention) {
      const program = opcodeProgram(user.userEmail) ?? '';
      skipped.set(program, { reason: days.reason, users: (skipped.get(program)?.users ?? 0) + 1 });
      continue;
    }
    const group = byDays.get(days) ?? [];
    group.push(user.uuid);
    byDays.set(days, group);
  }
  for (const [program, { reason, users }] of skipped) {
    process.stderr.write(
      `itinera: warning: program ${program}: how long it keeps raw locations cannot be read from its stored configuration (${reason}); save a version that passes (npx itinera program update)\n`,
    );
    process.stdout.write(`${users} users of program ${program} skipped: its days cannot be read\n`);
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
