import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emissionFixturesDir } from '../../../test/helpers/fixtures.js';
import {
  readEmissionEntries,
  type EmissionEntry,
  type ImportSkip,
  type ReadEmissionOptions,
} from './read-emission-dump.js';

/** A dump from elsewhere is read within bounds (bounded-text.ts); a file that breaks one is read up to there. */

const USER = '0763de67-f61e-3f5d-90e7-518e69793954';
const good = (n: number) =>
  JSON.stringify({ user_id: { $uuid: USER }, metadata: { key: 'background/battery', write_ts: n }, data: { ts: n } });
const REAL_DAY = join(emissionFixturesDir(), 'emission-real-days', 'shankari_2015-08-23.json');

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'itinera-import-bounds-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function read(path: string, opts: ReadEmissionOptions = {}): Promise<EmissionEntry[]> {
  const out: EmissionEntry[] = [];
  for await (const e of readEmissionEntries(path, opts)) out.push(e);
  return out;
}

describe('bounds on a dump from elsewhere', () => {
  const small = { maxFileBytes: 1024 ** 2, maxEntryBytes: 4096, maxDepth: 16 };
  const readBounded = async (file: string) => {
    const skips: ImportSkip[] = [];
    const entries = await read(file, { onSkip: (s) => skips.push(s), bounds: small });
    return { entries, skips };
  };

  it('When a small gzip inflates past the decompressed bound, then reading stops there and says why', async () => {
    // 64 MB of spaces inside an array: about 64 KB compressed.
    const bomb = Buffer.concat([Buffer.from(`[${good(1)},`), Buffer.alloc(64 * 1024 ** 2, 0x20), Buffer.from(']')]);
    const file = join(tmp, 'bomb.json.gz');
    writeFileSync(file, gzipSync(bomb));
    expect(statSync(file).size).toBeLessThan(small.maxFileBytes);
    const skips: ImportSkip[] = [];
    await read(file, { onSkip: (s) => skips.push(s), bounds: { ...small, maxEntryBytes: 128 * 1024 ** 2 } });
    expect(skips).toEqual([
      { file, element: expect.any(Number), reason: expect.stringMatching(/once decompressed; the rest of the file/) },
    ]);
  });

  it('When a gzip inflates into nothing but whitespace, then it is refused at the file bound, not read to its end as an empty file', async () => {
    const file = join(tmp, 'blank-bomb.json.gz');
    writeFileSync(file, gzipSync(Buffer.alloc(8 * 1024 ** 2, 0x20)));
    const skips: ImportSkip[] = [];
    expect(await read(file, { onSkip: (s) => skips.push(s), bounds: small })).toEqual([]);
    expect(skips).toEqual([{ file, reason: `more than ${small.maxFileBytes} bytes once decompressed` }]);
  });

  it('When an NDJSON line is longer than an entry may be, then the lines before it are read and it is reported', async () => {
    const file = join(tmp, 'long-line.ndjson');
    writeFileSync(file, [good(1), good(2), `{"pad": "${'x'.repeat(10_000)}"}`, good(3)].join('\n'));
    const { entries, skips } = await readBounded(file);
    expect(entries.map((e) => e.metadata['write_ts'])).toEqual([1, 2]);
    expect(skips).toEqual([{ file, line: 3, reason: expect.stringMatching(/longer than 4096 bytes/) }]);
  });

  // In an array, the elements read in the same chunk as the one that breaks a bound may go with it: the report
  // names the first element not read.
  const goodOnes = Array.from({ length: 400 }, (_, i) => good(i + 1)).join(', ');

  it('When an array element is longer than an entry may be, then the elements before it are read and it is reported', async () => {
    const file = join(tmp, 'long-element.json');
    writeFileSync(file, `[${goodOnes}, {"pad": "${'x'.repeat(2 * 1024 ** 2)}"}, ${good(401)}]`);
    const skips: ImportSkip[] = [];
    const entries = await read(file, {
      onSkip: (s) => skips.push(s),
      bounds: { ...small, maxEntryBytes: 512 * 1024 },
    });
    expect(entries.length).toBeGreaterThan(300);
    expect(entries.map((e) => e.metadata['write_ts'])).not.toContain(401);
    expect(skips).toEqual([
      { file, element: entries.length, reason: expect.stringMatching(/longer than 524288 bytes/) },
    ]);
  });

  it('When an entry nests deeper than the bound, then it is reported with where, in either format', async () => {
    const deep = `{"metadata": {"key": "background/location"}, "data": ${'['.repeat(40)}${']'.repeat(40)}}`;
    const array = join(tmp, 'deep.json');
    writeFileSync(array, `[${goodOnes}, ${deep}, ${good(401)}]`);
    const lines = join(tmp, 'deep.ndjson');
    writeFileSync(lines, [good(1), deep, good(2)].join('\n'));
    const arraySkips: ImportSkip[] = [];
    const fromArray = await read(array, {
      onSkip: (s) => arraySkips.push(s),
      bounds: { ...small, maxEntryBytes: 512 * 1024 },
    });
    expect(fromArray.length).toBeGreaterThan(300);
    expect(arraySkips).toEqual([
      {
        file: array,
        element: fromArray.length,
        reason: expect.stringMatching(/deeper than 16 levels at \[400\]\.data/),
      },
    ]);
    const fromLines = await readBounded(lines);
    expect(fromLines.entries.map((e) => e.metadata['write_ts'])).toEqual([1]);
    expect(fromLines.skips).toEqual([
      { file: lines, line: 2, reason: expect.stringMatching(/deeper than 16 levels at data/) },
    ]);
  });

  it('When a real day is read under the default bounds, then nothing is refused', async () => {
    const skips: ImportSkip[] = [];
    await read(REAL_DAY, { onSkip: (s) => skips.push(s) });
    expect(skips).toEqual([]);
  });
});
