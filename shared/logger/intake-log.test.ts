import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createIntakeLog } from './intake-log.js';

function closed(log: ReturnType<typeof createIntakeLog>): Promise<void> {
  return new Promise((resolve) => {
    log.on('finish', () => setTimeout(resolve, 200));
    log.end();
  });
}

describe('createIntakeLog', () => {
  it('When the log outgrows its size, then it rotates into intake_<n>.<g>.log.gz files, keeps at most max_files, and every kept file reads with zcat', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'itinera-intake-rotation-'));
    const log = createIntakeLog({ dir, maxBytes: 16 * 1024, maxFiles: 3 }, 7);
    // Random text barely compresses, so the gzip stream outgrows 16 KB every few hundred lines.
    for (let i = 0; i < 3000; i += 1) log.info(`line ${i} ${randomBytes(24).toString('hex')}`);
    await closed(log);

    const files = readdirSync(dir).sort();
    expect(files).toEqual(['intake_7.1.log.gz', 'intake_7.2.log.gz', 'intake_7.log.gz']);
    const lines = (name: string) =>
      gunzipSync(readFileSync(join(dir, name)))
        .toString('utf8')
        .trim()
        .split('\n');
    // The newest lines are in the current file, the older ones in .1 then .2, in order, none twice.
    const kept = [...lines('intake_7.2.log.gz'), ...lines('intake_7.1.log.gz'), ...lines('intake_7.log.gz')];
    const numbers = kept.map((l) => Number(/:line (\d+) /.exec(l)?.[1]));
    expect(numbers.at(-1)).toBe(2999);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(numbers.length).toBeLessThan(3000);
  });

  it('When the directory is "-", then the lines go to standard output and no file is written', () => {
    const log = createIntakeLog({ dir: '-', maxBytes: 1024, maxFiles: 1 }, 0);
    expect(log.transports).toHaveLength(1);
    expect(log.transports[0]!.constructor.name).toBe('Stream');
  });
});
