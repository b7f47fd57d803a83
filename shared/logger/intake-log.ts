import {
  createWriteStream,
  existsSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  type WriteStream,
} from 'node:fs';
import { join } from 'node:path';
import { constants, createGzip, type Gzip } from 'node:zlib';
import Transport from 'winston-transport';
import winston from 'winston';
import { specLineFormat } from './create-logger.js';

/** Seconds between gzip flushes: lines become readable by `zcat` within this delay. */
const FLUSH_INTERVAL_MS = 1000;

/** Where a spec log goes: files in `dir` rotated by size, or standard output when `dir` is {@link TO_STDOUT}. */
export interface LogFiles {
  dir: string;
  /** Bytes after which the file is rotated (compressed bytes for the intake logs). */
  maxBytes: number;
  /** Files kept, the current one included (`intake_0.log.gz`, `intake_0.1.log.gz` … oldest last). */
  maxFiles: number;
}

/** The log directory that means "standard output", for containers whose runtime collects it. */
export const TO_STDOUT = '-';

/**
 * A gzip file rotated by size. Rotated files keep the `.log.gz` ending (`intake_0.1.log.gz` is the newest of them), so
 * `zcat` reads each; `ls -tr intake_0*.log.gz | xargs zcat` reads a worker's lines oldest first. Rotation renames the
 * open file and opens a new one: the old stream finishes writing its last member into the renamed file, so no line is
 * lost or waits on the rename. A file left by an earlier process is rotated away at start: its size then counts, and
 * a member a kill -9 cut short never sits in front of this process's lines.
 */
class RotatingGzipTransport extends Transport {
  #gzip!: Gzip;
  #file!: WriteStream;
  readonly #timer: NodeJS.Timeout;
  #reported = false;

  constructor(
    private readonly dir: string,
    private readonly base: string,
    private readonly limits: LogFiles,
  ) {
    super();
    if ((statSync(this.#path(0), { throwIfNoEntry: false })?.size ?? 0) > 0) this.#shift();
    this.#open();
    this.#timer = setInterval(() => {
      this.#gzip.flush(constants.Z_SYNC_FLUSH);
      this.#rotateWhenFull();
    }, FLUSH_INTERVAL_MS);
    this.#timer.unref();
  }

  #path(generation: number): string {
    return join(this.dir, generation === 0 ? `${this.base}.log.gz` : `${this.base}.${generation}.log.gz`);
  }

  /** A full disk or a vanished directory must not stop the pipeline: said once on stderr, then lines are dropped. */
  #report = (err: unknown): void => {
    if (this.#reported) return;
    this.#reported = true;
    process.stderr.write(`intake log ${this.#path(0)} cannot be written: ${String(err)}\n`);
  };

  #open(): void {
    this.#gzip = createGzip();
    // Opened synchronously: a rotation renames the file this stream holds, never a path it has yet to open.
    this.#file = createWriteStream('', { fd: openSync(this.#path(0), 'a') });
    this.#gzip.on('error', this.#report);
    this.#file.on('error', this.#report);
    this.#gzip.pipe(this.#file);
  }

  /** Each file one generation older; the oldest beyond `maxFiles` deleted. */
  #shift(): void {
    const kept = Math.max(1, this.limits.maxFiles);
    rmSync(this.#path(kept - 1), { force: true });
    for (let g = kept - 2; g >= 0; g -= 1) if (existsSync(this.#path(g))) renameSync(this.#path(g), this.#path(g + 1));
  }

  #rotateWhenFull(): void {
    // Compressed bytes only: text still inside the gzip stream would rotate a slow disk's files while nearly empty.
    if (this.#file.bytesWritten + this.#file.writableLength < this.limits.maxBytes) return;
    try {
      this.#shift();
    } catch (err) {
      this.#report(err);
      return;
    }
    this.#gzip.end();
    this.#open();
  }

  override log(info: Record<string | symbol, unknown>, next: () => void): void {
    this.#gzip.write(`${String(info[Symbol.for('message')])}\n`);
    this.#rotateWhenFull();
    next();
  }

  override close(): void {
    clearInterval(this.#timer);
    this.#gzip.end();
  }
}

/**
 * The pipeline log of the spec: `<dir>/intake_<n>.log.gz` (the trip builder's `intake_<n>-trips.log.gz`), one file per
 * worker, read with zcat or zless, lines in the same `<datetime,ms>:<LEVEL>:<thread>:<message>` format as the web
 * server log. Rotated by compressed size (a converter logs a line per entry: gigabytes a day at 10,000 phones).
 */
export function createIntakeLog(files: LogFiles, worker: number, level = 'info', stage?: string): winston.Logger {
  const transport =
    files.dir === TO_STDOUT
      ? new winston.transports.Stream({ stream: process.stdout })
      : (mkdirSync(files.dir, { recursive: true }),
        // Each process appends to its own file: two writers on one gzip stream would interleave their members.
        new RotatingGzipTransport(files.dir, stage ? `intake_${worker}-${stage}` : `intake_${worker}`, files));
  return winston.createLogger({ level, format: specLineFormat(), transports: [transport] });
}
