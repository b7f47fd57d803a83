import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { pipeline, Transform, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import StreamJson from 'stream-json';
import StreamArray from 'stream-json/streamers/StreamArray.js';
import {
  resolveDefaultUser,
  toEmissionEntry,
  type DefaultUser,
  type EmissionEntry,
  type EntryPlace,
  type ImportSkip,
} from '../domain/emission-entry.js';
import { boundedText, DUMP_BOUNDS, type DumpBounds } from './bounded-text.js';
import { groundTruthBeside, groundTruthUser } from './ground-truth-day.js';
import { listDumpFiles } from './list-dump-files.js';

export type { EmissionEntry, ImportSkip } from '../domain/emission-entry.js';

export interface ReadEmissionOptions {
  /**
   * Bytes read from disk since the last call (compressed bytes for `.gz`), for a progress bar against the sum of
   * listDumpFiles' `bytes`. A file skipped or cut short is topped up to its full size once it is done with.
   */
  onBytes?: (n: number) => void;
  /** Every line, element or file left out, with why. Without it, skips are silent. */
  onSkip?: (skip: ImportSkip) => void;
  /** Owner of entries without `user_id`; without it such an entry throws ImportFormatError. */
  defaultUser?: DefaultUser;
  /** What one file may hold (bounded-text.ts); a file that breaks a bound is read up to there and reported. */
  bounds?: DumpBounds;
}

/** How much decompressed text is looked at to tell the formats apart: the first line of NDJSON is one entry. */
const SNIFF_LIMIT_BYTES = 64 * 1024;
const WHITESPACE: ReadonlySet<number> = new Set([0x20, 0x09, 0x0a, 0x0d]);
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

type DumpFormat = 'array' | 'ndjson' | 'empty' | { refused: string };

const ignore = (): void => {};

/** Node's own I/O failures (a file gone, a permission refused) are the machine's problem, not the dump's: rethrown. */
function isSystemError(err: unknown): boolean {
  return err instanceof Error && typeof (err as NodeJS.ErrnoException).syscall === 'string';
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function countingBytes(onBytes: (n: number) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      onBytes(chunk.length);
      done(null, chunk);
    },
  });
}

/** Windows tools write a BOM; neither JSON.parse nor stream-json accepts one. */
function withoutLeadingBom(): Transform {
  let first = true;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const bom = first && chunk.subarray(0, UTF8_BOM.length).equals(UTF8_BOM);
      first = false;
      done(null, bom ? chunk.subarray(UTF8_BOM.length) : chunk);
    },
  });
}

/**
 * The file's text as bytes, gunzipped when the name ends in `.gz`. An error anywhere (a corrupt gzip) surfaces on
 * the returned stream, where the reader meets it.
 */
function openText(file: string, onBytes?: (n: number) => void, bounded?: Transform): Readable {
  const stages: NodeJS.ReadWriteStream[] = [];
  if (onBytes) stages.push(countingBytes(onBytes));
  if (/\.gz$/i.test(file)) stages.push(createGunzip());
  if (bounded) stages.push(bounded);
  stages.push(withoutLeadingBom());
  return pipeline([createReadStream(file), ...stages], ignore) as unknown as Readable;
}

/** The format the first bytes show, or undefined while they do not tell yet. */
function classify(head: Buffer, complete: boolean): DumpFormat | undefined {
  let start = 0;
  while (start < head.length && WHITESPACE.has(head[start] as number)) start++;
  if (start === head.length) return complete ? 'empty' : undefined;
  const first = head[start];
  if (first === 0x5b /* [ */) return 'array';
  if (first !== 0x7b /* { */) {
    return {
      refused: `starts with ${JSON.stringify(String.fromCharCode(first as number))}: neither a JSON array nor NDJSON`,
    };
  }
  return classifyBrace(head.subarray(start), complete);
}

function isJsonObject(line: string): boolean {
  try {
    const value: unknown = JSON.parse(line);
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  } catch {
    return false;
  }
}

const ONE_OBJECT = 'one JSON object over several lines, not a timeseries (a JSON array or NDJSON)';

/**
 * Text opening with `{`: NDJSON when its first line is a JSON object by itself. A first line that is not can be a
 * damaged NDJSON line or the start of one object printed over several lines (a ground truth, a single entry); the
 * second line tells: an NDJSON file goes on with whole documents, an indented object never does. Refusing such a
 * file whole keeps it from being reported once per line.
 */
function classifyBrace(text: Buffer, complete: boolean): DumpFormat | undefined {
  const lines = text.toString('utf8').split('\n');
  // The last piece of an unfinished head may be a cut line (or a cut UTF-8 character): not judged.
  if (!complete) lines.pop();
  const [first, second] = lines.filter((l) => l.trim() !== '');
  if (first === undefined || second === undefined) {
    if (first !== undefined && isJsonObject(first)) return 'ndjson';
    if (first?.trim() === '{') return { refused: ONE_OBJECT };
    // One line in all, or lines longer than the window: read as NDJSON, where a bad line is reported by number.
    return complete || text.length >= SNIFF_LIMIT_BYTES ? 'ndjson' : undefined;
  }
  return isJsonObject(first) || isJsonObject(second) ? 'ndjson' : { refused: ONE_OBJECT };
}

/**
 * The format, from the first bytes past any leading whitespace. Whitespace is counted, not kept: a file of nothing
 * else (a gzip can inflate a few KB into gigabytes of spaces) holds no memory, and past the file bound it is
 * refused.
 */
async function sniffFormat(file: string, bounds: DumpBounds): Promise<DumpFormat> {
  const text = openText(file);
  let head = Buffer.alloc(0);
  let total = 0;
  try {
    for await (const chunk of text) {
      total += (chunk as Buffer).length;
      if (total > bounds.maxFileBytes) return { refused: `more than ${bounds.maxFileBytes} bytes once decompressed` };
      let bytes = chunk as Buffer;
      if (head.length === 0) {
        let start = 0;
        while (start < bytes.length && WHITESPACE.has(bytes[start] as number)) start++;
        bytes = bytes.subarray(start);
        if (bytes.length === 0) continue;
      }
      head = Buffer.concat([head, bytes]);
      const format = classify(head, false);
      if (format !== undefined) return format;
    }
    return classify(head, true) ?? 'empty';
  } finally {
    text.destroy();
  }
}

/** What one file's reading needs: where to report, and the owner of entries without one. */
interface FileReading {
  file: string;
  skip: (skip: ImportSkip) => void;
  defaultUser: string | undefined;
  onBytes: ((n: number) => void) | undefined;
  bounds: DumpBounds;
}

/** Reports what ended a file's reading early, at the place it was reached. */
function stopReading(reading: FileReading, place: EntryPlace, problem: string): void {
  reading.skip({ ...place, reason: `${problem}; the rest of the file was not read` });
}

/**
 * The file's next element or line; a read the content broke (bad JSON, a bound) reports it and gives undefined, which
 * ends the file. A system error (unreadable file, disk) is thrown: the import as a whole fails.
 */
async function nextOrStop<T>(
  iterator: AsyncIterator<T>,
  reading: FileReading,
  place: EntryPlace,
  /** A bound the read broke, asked after the failure (the bound is what made the parser fail). */
  boundProblem: () => string | undefined = () => undefined,
): Promise<IteratorResult<T> | undefined> {
  try {
    return await iterator.next();
  } catch (err) {
    if (isSystemError(err)) throw err;
    stopReading(reading, place, boundProblem() ?? messageOf(err));
    return undefined;
  }
}

function entryAt(doc: unknown, place: EntryPlace, reading: FileReading): EmissionEntry | undefined {
  const result = toEmissionEntry(doc, place, reading.defaultUser);
  if (result.ok) return result.entry;
  reading.skip({ ...place, reason: result.reason });
  return undefined;
}

/**
 * A JSON array streamed element by element: stream-json holds one element at a time, so a multi-GB export reads
 * in bounded memory. `streamValues: false` leaves only the packed tokens the array streamer assembles, half the
 * events. A syntax error cannot be stepped over in an array: it ends the file, reported with the next element.
 */
async function* readArray(reading: FileReading): AsyncGenerator<EmissionEntry> {
  const bounded = boundedText('array', reading.bounds);
  const text = openText(reading.file, reading.onBytes, bounded);
  const elements = pipeline(
    [text, StreamJson.parser({ streamValues: false }), StreamArray.streamArray()],
    ignore,
  ) as unknown as Readable;
  const iterator = elements[Symbol.asyncIterator]() as AsyncIterator<{ key: number; value: unknown }>;
  let next = 0;
  try {
    for (;;) {
      const place = { file: reading.file, element: next };
      const step = await nextOrStop(iterator, reading, place, () => bounded.problem);
      if (step === undefined) return;
      if (step.done) {
        if (bounded.problem !== undefined) stopReading(reading, place, bounded.problem);
        return;
      }
      bounded.entryDone();
      next = step.value.key + 1;
      const entry = entryAt(step.value.value, { file: reading.file, element: step.value.key }, reading);
      if (entry) yield entry;
    }
  } finally {
    elements.destroy();
    text.destroy();
  }
}

/**
 * mongoexport's NDJSON, one document per line. A line that is not JSON or not an entry is reported and stepped
 * over; blank lines are nothing. readline pauses the file while the consumer is busy, so memory stays one line.
 */
async function* readNdjson(reading: FileReading): AsyncGenerator<EmissionEntry> {
  const bounded = boundedText('ndjson', reading.bounds);
  const text = openText(reading.file, reading.onBytes, bounded);
  const lines = createInterface({ input: text, crlfDelay: Infinity });
  const iterator = lines[Symbol.asyncIterator]();
  let line = 0;
  try {
    for (;;) {
      const step = await nextOrStop(iterator, reading, { file: reading.file, line: line + 1 });
      if (step === undefined) return;
      line++;
      // The line that broke a bound is cut short (or never came): it is reported in its place.
      if (bounded.problem !== undefined && (step.done || line > bounded.linesPassed)) {
        stopReading(reading, { file: reading.file, line }, bounded.problem);
        return;
      }
      if (step.done) return;
      if (step.value.trim() === '') continue;
      let doc: unknown;
      try {
        doc = JSON.parse(step.value);
      } catch (err) {
        reading.skip({ file: reading.file, line, reason: `not JSON: ${messageOf(err)}` });
        continue;
      }
      const entry = entryAt(doc, { file: reading.file, line }, reading);
      if (entry) yield entry;
    }
  } finally {
    lines.close();
    text.destroy();
  }
}

/** The entries with each owner replaced by `ownerOf` of it (computed once per owner). */
async function* owned(
  entries: AsyncIterable<EmissionEntry>,
  ownerOf: (uuid: string) => string,
): AsyncGenerator<EmissionEntry> {
  const owners = new Map<string, string>();
  for await (const entry of entries) {
    let owner = owners.get(entry.userUuid);
    if (owner === undefined) {
      owner = ownerOf(entry.userUuid);
      owners.set(entry.userUuid, owner);
    }
    yield { ...entry, userUuid: owner };
  }
}

/**
 * The entries of one dump file. The format is told by the first byte that is not whitespace: `[` is a JSON array
 * (e-mission's export, or `mongoexport --jsonArray`), `{` is NDJSON (mongoexport's default, whatever the file's
 * extension) unless the file is one indented object (a ground truth, a profile), which is refused as a whole.
 *
 * A file with e-mission's ground truth beside it (`<stem>.ground_truth.json`) is one of e-mission's test days, and
 * is read as e-mission's tests load it to make that ground truth: as a user of its own (`setupRealExample` in
 * emission/tests/common.py gives every file a fresh uuid), here groundTruthUser(its uuid, the file), the same on
 * every run. Any other file keeps its users' uuids.
 */
export async function* readEmissionFile(
  file: string,
  opts: ReadEmissionOptions = {},
  sizeBytes?: number,
): AsyncGenerator<EmissionEntry> {
  let counted = 0;
  const reading: FileReading = {
    file,
    skip: opts.onSkip ?? ignore,
    defaultUser: resolveDefaultUser(opts.defaultUser, file),
    bounds: opts.bounds ?? DUMP_BOUNDS,
    onBytes: opts.onBytes
      ? (n) => {
          counted += n;
          opts.onBytes?.(n);
        }
      : undefined,
  };
  let format: DumpFormat;
  try {
    format = await sniffFormat(file, reading.bounds);
  } catch (err) {
    if (isSystemError(err)) throw err;
    format = { refused: messageOf(err) };
  }
  const truth = format === 'array' || format === 'ndjson' ? await groundTruthBeside(file) : undefined;
  const entries = format === 'array' ? readArray(reading) : format === 'ndjson' ? readNdjson(reading) : undefined;
  if (entries) yield* truth ? owned(entries, (uuid) => groundTruthUser(uuid, file)) : entries;
  else if (typeof format === 'object') reading.skip({ file, reason: format.refused });
  // Only reached when the file was read to its end (a consumer that stops early never gets here).
  if (opts.onBytes && sizeBytes !== undefined && sizeBytes > counted) opts.onBytes(sizeBytes - counted);
}

/**
 * Every e-mission timeseries entry under `path` (a dump file or a folder of them, see listDumpFiles), file after
 * file, in file order. Bad lines and files are reported through `onSkip` and stepped over; only an entry without
 * an owner (ImportFormatError) or an I/O failure stops the reading.
 */
export async function* readEmissionEntries(
  path: string,
  opts: ReadEmissionOptions = {},
): AsyncGenerator<EmissionEntry> {
  for (const { path: file, bytes } of await listDumpFiles(path)) yield* readEmissionFile(file, opts, bytes);
}
