import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { createIdempotentProducer } from '../../../shared/kafka/index.js';
import { createProgramConfigsTable, createUsersTable, type User } from '../../../shared/tables/index.js';
import { createTimeseriesEraser } from '../../../shared/timeseries/index.js';
import { deleteUser as deleteAccount } from '../../deletion/delete-user.js';
import type { ExportFormat } from '../../export/domain/export-formats.js';
import { parseExportRange, utcDate } from '../../export/domain/export-range.js';
import { createProgramManager } from '../../programs/manage-programs.js';
import type { Session } from '../session.js';
import { accountDeletion, operatorName } from './delete-user.js';
import { exportFiles, programUsers } from './export.js';

/** What an archive keeps of each participant: every raw entry, and the trips as a table. */
const ARCHIVE_FORMATS: readonly ExportFormat[] = ['ndjson', 'trips-csv'];
const DAY_S = 86_400;

async function sha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function* filesUnder(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else yield path;
  }
}

/** The UTC days the participants have raw entries on, widened by a day (a trip's local date may fall outside). */
async function dataDays(s: Session, users: readonly User[]): Promise<{ from: string; to: string } | undefined> {
  const eraser = createTimeseriesEraser(s.cql);
  let [first, last] = [Infinity, -Infinity];
  for (const user of users)
    for await (const p of eraser.partitions(user.uuid))
      if (!p.byDataTs) [first, last] = [Math.min(first, p.day), Math.max(last, p.day)];
  if (first === Infinity) return undefined;
  return { from: utcDate((first - 1) * DAY_S * 1000), to: utcDate((last + 1) * DAY_S * 1000) };
}

/**
 * `itinera program archive <program> --out DIR --yes`: ends a program for good. It is closed first (a new version
 * with `itinera.closed`, so gateways stop taking its data within `program_refresh_s`), then every participant's raw
 * entries (NDJSON) and trips (CSV) over all their days are exported under DIR, then every participant is deleted,
 * and DIR/receipt-<time>.json says what was written (each file's size and SHA-256) and whom was deleted, by whom and when.
 * Without --yes it only says what it would do. A run stopped halfway can be run again: exported days are skipped
 * and deleted participants are no longer in the program.
 */
export async function archiveProgram(s: Session, program: string, outDir: string, confirmed: boolean): Promise<number> {
  const manager = createProgramManager(createProgramConfigsTable(s.cql));
  const current = await manager.show(program);
  const users: User[] = [];
  for await (const user of programUsers(createUsersTable(s.cql, { cacheEntries: 1 }).all(), program)) users.push(user);
  if (!confirmed) {
    process.stdout.write(
      `would close program ${program}, export its ${users.length} participants to ${outDir} and delete them; run again with --yes\n`,
    );
    return 1;
  }
  const by = process.env['ITINERA_OPERATOR'] ?? operatorName();
  const document = JSON.parse(current.document) as Record<string, unknown> & { version: number; itinera?: object };
  const closing = {
    ...document,
    version: current.version + 1,
    itinera: { ...document.itinera, closed: true, closed_message: `program ${program} has ended and is archived` },
  };
  await manager.update({ program, document: JSON.stringify(closing), by, note: 'archived' });
  // Puts the gateways took before they read the closing version reach the timeseries within seconds.
  await new Promise((r) => setTimeout(r, s.config.webserver.programRefreshMs + 5_000));

  const days = await dataDays(s, users);
  if (days) {
    const range = parseExportRange({ start_date: days.from, end_date: days.to }, days.to, { maxDays: Infinity });
    for (const format of ARCHIVE_FORMATS)
      await exportFiles(s, { format, who: undefined, program, range, outDir: join(outDir, format) });
  }
  await mkdir(outDir, { recursive: true });
  const files = [];
  for await (const path of filesUnder(outDir))
    if (!/receipt-[^/]*\.json$/.test(path))
      files.push({ path: relative(outDir, path), bytes: (await stat(path)).size, sha256: await sha256(path) });

  const producer = createIdempotentProducer(s.kafka);
  await producer.connect();
  const deleted = [];
  try {
    const deletion = accountDeletion(s, producer);
    for (const user of users) {
      const report = await deleteAccount(deletion, user.uuid, 'operator', by);
      deleted.push({
        uuid: user.uuid,
        timeseries_partitions: report.timeseriesPartitions,
        documents: report.documents,
      });
    }
  } finally {
    await producer.disconnect();
  }
  const receipt = {
    program,
    archived_at: new Date().toISOString(),
    by,
    closed_with_version: closing.version,
    range: days ?? null,
    files: files.sort((a, b) => a.path.localeCompare(b.path)),
    deleted,
  };
  // A rerun after a stop finds fewer participants: each run keeps its own receipt.
  const receiptPath = join(outDir, `receipt-${receipt.archived_at.replace(/[:.]/g, '-')}.json`);
  await writeFile(receiptPath, `${JSON.stringify(receipt, null, 2)}\n`);
  process.stdout.write(
    `archived program ${program}: ${files.length} files, ${deleted.length} participants deleted; receipt ${receiptPath} (sha256 ${await sha256(receiptPath)})\n`,
  );
  return 0;
}
