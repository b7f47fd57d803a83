import { createWriteStream } from 'node:fs';
import { access, mkdir, rename, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import cliProgress from 'cli-progress';
import { isAppError } from '../../../shared/errors/index.js';
import { createUsersTable } from '../../../shared/tables/index.js';
import { dayFileName, type ExportFormat, isExportFormat, partialFileName } from '../../export/domain/export-formats.js';
import { datesOf, dayRange, type ExportRange, parseExportRange, utcDate } from '../../export/domain/export-range.js';
import { type Deidentification, exportUser, frequentPlacesOf } from '../../export/export-user.js';
import { keyedUserId } from '../../export/keyed-user-id.js';
import { createExportSources } from '../../export/store/cassandra-export-sources.js';
import type { ExportSources } from '../../export/stores.js';
import { opcodeProgram } from '../../../shared/programs/domain/opcode.js';
import { fail, resolveUser, type Session } from '../session.js';

export interface ExportOptions {
  format: ExportFormat;
  /** A token or uuid; undefined: every registered user (of `program`, when given). */
  who: string | undefined;
  /** Only the participants of this program (their tokens name it). */
  program?: string;
  range: ExportRange;
  outDir: string;
  deidentify?: Omit<Deidentification, 'places'>;
}

/** The command line's values for `itinera export` (main.ts's parseArgs). */
export interface ExportArgs {
  all?: boolean;
  user?: string;
  program?: string;
  from?: string;
  to?: string;
  out?: string;
  deidentify?: boolean;
  secret?: string;
  radius?: string;
}

/** Metres around a frequent place left out of a de-identified export, when `--radius` is not given. */
const DEFAULT_RADIUS_M = 200;

const DAY_MS = 86_400_000;

/**
 * `itinera export`'s options, or why they are wrong (a message for standard error). By default the last 30
 * complete UTC days, ending yesterday: a day's file is final once written (reruns skip it), so today, still
 * filling, is exported only when asked for.
 */
export function parseExportOptions(
  format: string | undefined,
  args: ExportArgs,
  nowMs: number,
): ExportOptions | string {
  if (format === undefined || !isExportFormat(format))
    return `export needs a format: ndjson, geojson, gpx, trips-csv, sections-csv or days-csv${format ? `, got ${format}` : ''}`;
  if ([args.all, args.user, args.program].filter(Boolean).length !== 1)
    return 'export needs exactly one of -a (all users), -u <token or uuid> or --program <program>';
  let range: ExportRange;
  try {
    range = parseExportRange({ start_date: args.from, end_date: args.to }, utcDate(nowMs - DAY_MS), {
      maxDays: Infinity,
    });
  } catch (err) {
    if (!isAppError(err)) throw err;
    return `export: ${err.message.replace('start_date', '--from').replace('end_date', '--to')}`;
  }
  const options: ExportOptions = {
    format,
    who: args.user,
    ...(args.program ? { program: args.program } : {}),
    range,
    outDir: args.out ?? 'itinera-export',
  };
  if (!args.deidentify) {
    return args.secret === undefined && args.radius === undefined
      ? options
      : '--secret and --radius go with --deidentify';
  }
  if (!args.secret) return '--deidentify needs --secret S (the key of the pseudonyms; keep it to join later exports)';
  const radiusM = args.radius === undefined ? DEFAULT_RADIUS_M : Number(args.radius);
  if (!Number.isFinite(radiusM) || radiusM < 0) return `--radius must be a number of metres, got ${args.radius}`;
  return { ...options, deidentify: { secret: args.secret, radiusM } };
}

/** As parseExportOptions, ending the command (exit 2) when they are wrong. */
export function exportOptions(format: string | undefined, args: ExportArgs, nowMs = Date.now()): ExportOptions {
  const parsed = parseExportOptions(format, args, nowMs);
  return typeof parsed === 'string' ? fail(parsed) : parsed;
}

/**
 * The directory and file of a user's day: `<out>/<uuid or pseudonym>/<date>.<ext>`. The uuid, never the token:
 * a token is whatever the phone sent (a path separator, `..`), and in token_list or secret mode a credential.
 */
export function dayFilePath(outDir: string, userDir: string, format: ExportFormat, date: string): string {
  return join(outDir, userDir, dayFileName(format, date));
}

interface Totals {
  files: number;
  bytes: number;
  /** Days whose file was there already (an earlier run). */
  present: number;
  /** Days the user has nothing of in this format: no file. */
  empty: number;
}

/**
 * `itinera export <format> (-u USER | -a)`: one file per user and UTC day with data, written to a dot file and
 * renamed when complete, so a file that exists is whole. Days whose file exists are skipped: an interrupted run
 * started again goes on where it stopped. Days without data get no file (and are looked at again by a rerun), and
 * a user without any, no directory.
 * A progress bar on standard error; the totals on standard output.
 */
export async function exportFiles(s: Session, options: ExportOptions): Promise<number> {
  const sources = createExportSources(s.cql);
  const users = createUsersTable(s.cql, { cacheEntries: 1 });
  const totals: Totals = { files: 0, bytes: 0, present: 0, empty: 0 };
  const oneUserId = options.who === undefined ? undefined : await resolveUser(s, options.who);
  const everyone = () => (options.program === undefined ? users.all() : programUsers(users.all(), options.program));
  const userCount = oneUserId === undefined ? await count(everyone()) : 1;
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: 'export |{bar}| {value}/{total} days | {files} files, {megabytes} MB',
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(userCount * options.range.days, 0, { files: 0, megabytes: 0 });
  try {
    const userIds = oneUserId === undefined ? uuidsOf(everyone()) : oneUser(oneUserId);
    for await (const userId of userIds) {
      await exportUserDays(sources, options, userId, totals, () =>
        bar.increment({ files: totals.files, megabytes: (totals.bytes / 1e6).toFixed(1) }),
      );
    }
  } finally {
    bar.stop();
  }
  process.stdout.write(
    `${totals.files} files, ${totals.bytes} bytes written to ${options.outDir}; ` +
      `${totals.present} days already there, ${totals.empty} days without data\n`,
  );
  return 0;
}

async function exportUserDays(
  sources: ExportSources,
  options: ExportOptions,
  userId: string,
  totals: Totals,
  dayDone: () => void,
): Promise<void> {
  const { format, range, outDir } = options;
  const deidentify = options.deidentify && {
    ...options.deidentify,
    // Over the whole range once: one day's trips may not show where the user lives.
    places: await frequentPlacesOf(sources, userId, range),
  };
  const userDir = deidentify ? keyedUserId(deidentify.secret, userId) : userId;
  await mkdir(join(outDir, userDir), { recursive: true });
  for (const date of datesOf(range)) {
    const target = dayFilePath(outDir, userDir, format, date);
    if (await exists(target)) {
      totals.present++;
    } else {
      const partial = join(outDir, userDir, partialFileName(format, date, process.pid));
      const written = await writeDay(sources, { format, userId, range: dayRange(date), deidentify }, partial, target);
      if (written === 0) totals.empty++;
      else {
        totals.files++;
        totals.bytes += written;
      }
    }
    dayDone();
  }
  // A user without data in the range leaves no directory (rmdir removes only an empty one).
  await rmdir(join(outDir, userDir)).catch(() => undefined);
}

/**
 * Writes one day's export to `partial` and renames it to `target`, returning its size; when the sources gave
 * nothing, removes it and returns 0. A failure removes the partial file too, and is thrown.
 */
async function writeDay(
  sources: ExportSources,
  request: Parameters<typeof exportUser>[1],
  partial: string,
  target: string,
): Promise<number> {
  const counted = countingSources(sources, request.format === 'days-csv');
  const { body } = exportUser(counted.sources, request);
  const file = createWriteStream(partial, { flags: 'wx' });
  try {
    await pipeline(body, file);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
  if (counted.items() === 0) {
    await rm(partial, { force: true });
    return 0;
  }
  await rename(partial, target);
  return file.bytesWritten;
}

/**
 * The sources, counting what they give: a day with no entry and no trip is a day without data. The days' scores
 * count only for the days export, whose rows they are; the trips export reads them for a column, and a day sensed
 * but without trips has no trips to export.
 */
function countingSources(sources: ExportSources, countDays: boolean): { sources: ExportSources; items: () => number } {
  let items = 0;
  async function* counted<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
    for await (const item of source) {
      items++;
      yield item;
    }
  }
  return {
    sources: {
      rawEntries: (...args) => counted(sources.rawEntries(...args)),
      compositeTrips: (...args) => counted(sources.compositeTrips(...args)),
      async dayQuality(...args) {
        const days = await sources.dayQuality(...args);
        if (countDays) items += days.length;
        return days;
      },
    },
    items: () => items,
  };
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

async function count(items: AsyncIterable<unknown>): Promise<number> {
  let n = 0;
  for await (const _item of items) n++;
  return n;
}

async function* uuidsOf(users: AsyncIterable<{ uuid: string }>): AsyncGenerator<string> {
  for await (const user of users) yield user.uuid;
}

/** The users whose token names `program`. */
export async function* programUsers<T extends { userEmail: string }>(
  users: AsyncIterable<T>,
  program: string,
): AsyncGenerator<T> {
  for await (const user of users) if (opcodeProgram(user.userEmail) === program) yield user;
}

async function* oneUser(userId: string): AsyncGenerator<string> {
  yield userId;
}
