import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { constants, createGzip } from 'node:zlib';
import Transport from 'winston-transport';
import winston from 'winston';
import { specLineFormat } from './create-logger.js';

/** Seconds between gzip flushes: lines become readable by `zcat` within this delay. */
const FLUSH_INTERVAL_MS = 1000;

class GzipTransport extends Transport {
  readonly #gzip = createGzip();
  readonly #timer: NodeJS.Timeout;

  constructor(path: string) {
    super();
    // Appending a new gzip member to an existing file is valid gzip: zcat and zless read all members in order.
    this.#gzip.pipe(createWriteStream(path, { flags: 'a' }));
    this.#timer = setInterval(() => this.#gzip.flush(constants.Z_SYNC_FLUSH), FLUSH_INTERVAL_MS);
    this.#timer.unref();
  }

  override log(info: Record<string | symbol, unknown>, next: () => void): void {
    this.#gzip.write(`${String(info[Symbol.for('message')])}\n`);
    next();
  }

  override close(): void {
    clearInterval(this.#timer);
    this.#gzip.end();
  }
}

/**
 * The pipeline log of the spec: `<dir>/intake_<n>.log.gz` (the trip builder's `intake_<n>-trips.log.gz`), one file per worker, read with zcat or zless, lines in
 * the same `<datetime,ms>:<LEVEL>:<thread>:<message>` format as the web server log.
 */
export function createIntakeLog(dir: string, worker: number, level = 'info', stage?: string): winston.Logger {
  mkdirSync(dir, { recursive: true });
  // Each process appends to its own file: two writers on one gzip stream would interleave their members.
  const name = stage ? `intake_${worker}-${stage}.log.gz` : `intake_${worker}.log.gz`;
  return winston.createLogger({
    level,
    format: specLineFormat(),
    transports: [new GzipTransport(join(dir, name))],
  });
}
