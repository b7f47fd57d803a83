import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, rename, stat, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { groupName, groups, topicName, type GroupId, type TopicId } from '../../../shared/events/index.js';
import { DependencyUnavailableError } from '../../../shared/errors/index.js';
import { groupProgress } from '../../../shared/kafka/index.js';
import { createProgramConfigsTable, createUsersTable, type User } from '../../../shared/tables/index.js';
import { createTimeseriesEraser } from '../../../shared/timeseries/index.js';
import { deleteUser as deleteAccount } from '../../deletion/delete-user.js';
import type { ExportFormat } from '../../export/domain/export-formats.js';
import { parseExportRange, utcDate } from '../../export/domain/export-range.js';
import { createProgramManager } from '../../../shared/programs/manage-programs.js';
import { fail, sessionProducer, type Session } from '../session.js';
import { accountDeletion, operatorName } from './delete-user.js';
import { exportFiles, programUsers } from './export.js';

/** What an archive keeps of each participant: every raw entry, and the trips as a table. */
const ARCHIVE_FORMATS: readonly ExportFormat[] = ['ndjson', 'trips-csv'];
const DAY_S = 86_400;
/** The pipeline's stages in order: each group, and the topic it consumes. */
const PIPELINE: readonly (readonly [GroupId, TopicId])[] = [
  ['converter', 'usercache'],
  ['tripBuilder', 'timeseries'],
];
const RECEIPT = /receipt-[^/]*\.json(\.tmp)?$/;

export interface ArchiveOptions {
  /** Longest wait for the pipeline to consume what the gateways accepted before the close. @defaultValue 15 min */
  pipelineWaitMs?: number;
}

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

/** The receipt's file names every file of DIR: files already there would be counted as this program's. */
async function checkFreshFolder(outDir: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(outDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    return fail(`--out ${outDir}: ${err instanceof Error ? err.message : String(err)}`, 1);
  }
  if (entries.length > 0)
    fail(`--out ${outDir} holds ${entries.length} files or folders: give a new or empty folder for the archive`, 1);
}

/**
 * Waits until each stage of the pipeline has consumed what its topic held when the wait began, the converter first
 * (what the gateways accepted before the close) and then the trip builder (what the converter made of it): only then
 * does an export hold every entry and trip the program took.
 */
async function waitForPipeline(s: Session, waitMs: number): Promise<void> {
  const deadline = Date.now() + waitMs;
  const prefix = s.config.kafka.topicPrefix;
  for (const [group, topic] of PIPELINE) {
    const [groupId, topicId] = [groupName(prefix, group), topicName(prefix, topic)];
    const target = (await groupProgress(s.admin, groupId, topicId)).partitions;
    for (;;) {
      const committed = new Map(
        (await groupProgress(s.admin, groupId, topicId)).partitions.map((p) => [p.partition, p.committed]),
      );
      const behind = target.reduce(
        (sum, { partition, high }) => sum + Math.max(0, high - Math.max(0, committed.get(partition) ?? -1)),
        0,
      );
      if (behind === 0) break;
      if (Date.now() >= deadline)
        throw new DependencyUnavailableError(
          `the ${groups[group]} group is still ${behind} records behind on ${topicId} after ${Math.round(waitMs / 1000)} s: ` +
            'nothing was exported or deleted and the program stays closed; once the pipeline runs, archive again into a new folder',
        );
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
}

interface Receipt {
  program: string;
  started_at: string;
  by: string;
  /** How far the archive got: the step under way, or `complete`. */
  stage: 'closing' | 'waiting for the pipeline' | 'exporting' | 'deleting' | 'complete';
  complete: boolean;
  /** Why the archive stopped before it was complete. */
  stopped?: string;
  closed_with_version?: number;
  participants?: number;
  range?: { from: string; to: string } | null;
  files: { path: string; bytes: number; sha256: string }[];
  deleted: { uuid: string; timeseries_partitions: number; documents: number }[];
  finished_at?: string;
}

/**
 * `itinera program archive <program> --out DIR --yes`: ends a program for good, in an order that loses nothing.
 * The program is closed first (a new version with `itinera.closed`: gateways stop taking its data within
 * `program_refresh_s`); then the archive waits until the pipeline has consumed what was accepted before that; only
 * then are the participants listed (none can join a closed program), their raw entries (NDJSON) and trips (CSV)
 * over all their days exported under DIR, and every one deleted. DIR must be new or empty. DIR/receipt-<time>.json
 * is written at each step (each file's size and SHA-256, whom was deleted, by whom and when), so an archive stopped
 * halfway leaves a receipt that says how far it got; running it again into a new folder finishes the work.
 * Without --yes it only says what it would do.
 */
export async function archiveProgram(
  s: Session,
  program: string,
  outDir: string,
  confirmed: boolean,
  { pipelineWaitMs = 15 * 60_000 }: ArchiveOptions = {},
): Promise<number> {
  const manager = createProgramManager(createProgramConfigsTable(s.cql));
  const usersTable = createUsersTable(s.cql, { cacheEntries: 1 });
  const listUsers = async () => {
    const users: User[] = [];
    for await (const user of programUsers(usersTable.all(), program)) users.push(user);
    return users;
  };
  const current = await manager.show(program);
  await checkFreshFolder(outDir);
  if (!confirmed) {
    process.stdout.write(
      `would close program ${program}, export its ${(await listUsers()).length} participants to ${outDir} and delete them; run again with --yes\n`,
    );
    return 1;
  }
  await mkdir(outDir, { recursive: true });
  const by = process.env['ITINERA_OPERATOR'] ?? operatorName();
  const startedAt = new Date().toISOString();
  const receiptPath = join(outDir, `receipt-${startedAt.replace(/[:.]/g, '-')}.json`);
  const receipt: Receipt = {
    program,
    started_at: startedAt,
    by,
    stage: 'closing',
    complete: false,
    files: [],
    deleted: [],
  };
  // Written whole and renamed into place: a receipt is never half a file, whenever the archive stops.
  const writeReceipt = async () => {
    await writeFile(`${receiptPath}.tmp`, `${JSON.stringify(receipt, null, 2)}\n`);
    await rename(`${receiptPath}.tmp`, receiptPath);
  };
  await writeReceipt();

  try {
    const document = JSON.parse(current.document) as Record<string, unknown> & { itinera?: { closed?: unknown } };
    if (document.itinera?.closed === true) receipt.closed_with_version = current.version;
    else {
      const closing = {
        ...document,
        version: current.version + 1,
        itinera: { ...document.itinera, closed: true, closed_message: `program ${program} has ended and is archived` },
      };
      await manager.update({ program, document: JSON.stringify(closing), by, note: 'archived' });
      receipt.closed_with_version = closing.version;
    }
    receipt.stage = 'waiting for the pipeline';
    await writeReceipt();
    // Gateways stop taking the program's puts once they read the closing version; a put under way then is stored
    // within seconds. What they accepted is then on the usercache topic, for the pipeline to consume.
    await new Promise((r) => setTimeout(r, s.config.webserver.programRefreshMs + 5_000));
    await waitForPipeline(s, pipelineWaitMs);

    const users = await listUsers();
    const days = await dataDays(s, users);
    Object.assign(receipt, { stage: 'exporting', participants: users.length, range: days ?? null });
    await writeReceipt();
    if (days) {
      const range = parseExportRange({ start_date: days.from, end_date: days.to }, days.to, { maxDays: Infinity });
      for (const format of ARCHIVE_FORMATS)
        await exportFiles(s, { format, who: undefined, program, range, outDir: join(outDir, format) });
    }
    for await (const path of filesUnder(outDir))
      if (!RECEIPT.test(path))
        receipt.files.push({
          path: relative(outDir, path),
          bytes: (await stat(path)).size,
          sha256: await sha256(path),
        });
    receipt.files.sort((a, b) => a.path.localeCompare(b.path));
    receipt.stage = 'deleting';
    await writeReceipt();

    const producer = sessionProducer(s);
    try {
      const deletion = accountDeletion(s, producer);
      for (const user of users) {
        const report = await deleteAccount(deletion, user.uuid, 'operator', by);
        receipt.deleted.push({
          uuid: user.uuid,
          timeseries_partitions: report.timeseriesPartitions,
          documents: report.documents,
        });
        await writeReceipt();
      }
    } finally {
      await producer.close();
    }
    Object.assign(receipt, { stage: 'complete', complete: true, finished_at: new Date().toISOString() });
  } catch (err) {
    receipt.stopped = err instanceof Error ? err.message : String(err);
    throw err;
  } finally {
    await writeReceipt();
  }
  process.stdout.write(
    `archived program ${program}: ${receipt.files.length} files, ${receipt.deleted.length} participants deleted; receipt ${receiptPath} (sha256 ${await sha256(receiptPath)})\n`,
  );
  return 0;
}
