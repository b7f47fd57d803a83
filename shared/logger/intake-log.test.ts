import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createIntakeLog } from './intake-log.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The lines of a gzip file; `cutShort` also reads one whose last member has no end, as zcat does. */
const linesOf = (dir: string, name: string, cutShort = false) =>
  gunzipSync(readFileSync(join(dir, name)), cutShort ? { finishFlush: constants.Z_SYNC_FLUSH } : {})
    .toString('utf8')
    .trim()
    .split('\n')
    .filter(Boolean);

/** Ends the log, then waits until its files are complete gzip (the streams close asynchronously). */
async function closed(log: ReturnType<typeof createIntakeLog>, dir: string, files = readdirSync(dir)): Promise<void> {
  log.end();
  for (let waited = 0; ; waited += 20) {
    try {
      for (const f of files) linesOf(dir, f);
      return;
    } catch (err) {
      if (waited > 10_000) throw err;
      await sleep(20);
    }
  }
}

/** Lines of random text, which barely compresses, a few at a time as a worker writes them. */
async function writeLines(log: ReturnType<typeof createIntakeLog>, from: number, count: number): Promise<void> {
  for (let i = from; i < from + count; i += 1) {
    log.info(`line ${i} ${randomBytes(24).toString('hex')}`);
    if (i % 50 === 49) await sleep(5);
  }
}

const numbers = (lines: string[]) => lines.map((l) => Number(/:line (\d+) /.exec(l)?.[1]));

describe('createIntakeLog', () => {
  // The timeouts leave room for a loaded CI machine: the files are complete only once the streams have closed.
  it('When the log outgrows its size, then it rotates into intake_<n>.<g>.log.gz files, keeps at most max_files, and every kept file reads with zcat, oldest lines in the highest generation', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'itinera-intake-rotation-'));
    const log = createIntakeLog({ dir, maxBytes: 16 * 1024, maxFiles: 3 }, 7);
    await writeLines(log, 0, 8000);
    await closed(log, dir);

    expect(readdirSync(dir).sort()).toEqual(['intake_7.1.log.gz', 'intake_7.2.log.gz', 'intake_7.log.gz']);
    const kept = numbers(['intake_7.2.log.gz', 'intake_7.1.log.gz', 'intake_7.log.gz'].flatMap((f) => linesOf(dir, f)));
    expect(kept.at(-1)).toBe(7999);
    expect(kept).toEqual([...kept].sort((a, b) => a - b));
    expect(new Set(kept).size).toBe(kept.length);
    expect(kept.length).toBeLessThan(8000);
  }, 20_000);

  it('When a worker starts where an earlier one left a file cut short by kill -9, then that file is rotated away whole and the new lines read on their own', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'itinera-intake-restart-'));
    const first = createIntakeLog({ dir, maxBytes: 1024 ** 2, maxFiles: 5 }, 0);
    await writeLines(first, 0, 10);
    await closed(first, dir);
    // A gzip member without its end, as a process killed mid-write leaves it.
    appendFileSync(join(dir, 'intake_0.log.gz'), Buffer.from([0x1f, 0x8b, 0x08, 0x00]));

    const second = createIntakeLog({ dir, maxBytes: 1024 ** 2, maxFiles: 5 }, 0);
    await writeLines(second, 10, 10);
    await closed(second, dir, ['intake_0.log.gz']);
    expect(numbers(linesOf(dir, 'intake_0.log.gz'))).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    expect(numbers(linesOf(dir, 'intake_0.1.log.gz', true))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(readdirSync(dir).sort()).toEqual(['intake_0.1.log.gz', 'intake_0.log.gz']);
  }, 20_000);

  it('When the directory is "-", then the lines go to standard output and no file is written', () => {
    const log = createIntakeLog({ dir: '-', maxBytes: 1024, maxFiles: 1 }, 0);
    expect(log.transports).toHaveLength(1);
    expect(log.transports[0]!.constructor.name).toBe('Stream');
  });
});
