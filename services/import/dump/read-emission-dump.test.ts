import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groundTruthUser } from './ground-truth-day.js';
import { ImportFormatError } from '../domain/import-format-error.js';
import { listDumpFiles } from './list-dump-files.js';
import {
  readEmissionEntries,
  readEmissionFile,
  type EmissionEntry,
  type ImportSkip,
  type ReadEmissionOptions,
} from './read-emission-dump.js';
import { emissionFixturesDir } from '../../../test/helpers/fixtures.js';

const DATA_DIRS = [join(emissionFixturesDir(), 'emission-real-days'), join(emissionFixturesDir(), 'emission-labels')];
/** Every timeseries array among the real files: days, user inputs and expected composite trips. */
const REAL_FILES = DATA_DIRS.flatMap((dir) =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.json') && !name.includes('ground_truth'))
    .map((name) => join(dir, name)),
);
const USER = '0763de67-f61e-3f5d-90e7-518e69793954';

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'itinera-import-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function read(path: string, opts: ReadEmissionOptions = {}): Promise<EmissionEntry[]> {
  const out: EmissionEntry[] = [];
  for await (const e of readEmissionEntries(path, opts)) out.push(e);
  return out;
}

function dashed(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** What the reader must yield for a real file, worked out with JSON.parse alone: only UUIDs change spelling. */
function expectedEntries(file: string): EmissionEntry[] {
  const docs = JSON.parse(readFileSync(file, 'utf8'), (_key, value: unknown) => {
    const v = value as { $uuid?: unknown };
    return v && typeof v === 'object' && typeof v.$uuid === 'string' && Object.keys(v).length === 1
      ? { $uuid: dashed(v.$uuid) }
      : value;
  }) as Array<{ _id: { $oid: string }; user_id: { $uuid: string }; metadata: object; data: object }>;
  return docs.map((d) => ({
    userUuid: d.user_id.$uuid,
    oid: d._id.$oid,
    metadata: d.metadata as Record<string, unknown>,
    data: d.data as Record<string, unknown>,
    file,
  }));
}

function uuidBase64(uuid: string): string {
  return Buffer.from(uuid.replaceAll('-', ''), 'hex').toString('base64');
}

/** The spellings mongoexport versions use for a UUID, taken in turn so every file holds all of them. */
function mongoUuid(uuid: string, turn: number): unknown {
  switch (turn % 4) {
    case 0:
      return { $binary: { base64: uuidBase64(uuid), subType: '04' } };
    case 1:
      return { $binary: { base64: uuidBase64(uuid), subType: '03' } };
    case 2:
      return { $binary: uuidBase64(uuid), $type: '03' };
    default:
      return { $uuid: uuid };
  }
}

/** A JSON value in mongoexport's canonical Extended JSON: every number wrapped, every UUID a binary. */
function toCanonical(value: unknown, turn: number): unknown {
  if (typeof value === 'number') {
    if (Object.is(value, -0)) return { $numberDouble: '-0.0' };
    if (!Number.isInteger(value)) return { $numberDouble: String(value) };
    return Math.abs(value) < 2 ** 31 ? { $numberInt: String(value) } : { $numberLong: String(value) };
  }
  if (Array.isArray(value)) return value.map((v) => toCanonical(v, turn));
  if (value === null || typeof value !== 'object') return value;
  const obj = value as Record<string, unknown>;
  if (typeof obj['$uuid'] === 'string') return mongoUuid(dashed(obj['$uuid']), turn);
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, toCanonical(v, turn)]));
}

/** The real file as mongoexport NDJSON of Stage_timeseries, one document a line. */
function asMongoExport(file: string): string {
  const docs = JSON.parse(readFileSync(file, 'utf8')) as unknown[];
  return docs.map((d, i) => JSON.stringify(toCanonical(d, i))).join('\n') + '\n';
}

const withoutFile = (entries: EmissionEntry[]) => entries.map(({ file: _file, ...rest }) => rest);

describe('readEmissionEntries on the real e-mission files', () => {
  it('When the real folders are listed, then every timeseries array is there and no ground truth', async () => {
    const listed = (await Promise.all(DATA_DIRS.map(listDumpFiles))).flat().map((f) => f.path);
    expect(listed.sort()).toEqual([...REAL_FILES].sort());
    expect(REAL_FILES.length).toBeGreaterThanOrEqual(14);
  });

  it.each(REAL_FILES.map((f) => [basename(f), f]))(
    'When %s is read as e-mission exported it, then it yields what JSON.parse finds, entry for entry',
    async (_name, file) => {
      const entries = await read(file);
      // A day with e-mission's ground truth beside it is read as a user of its own (see the next describe).
      const ownUser = existsSync(file.replace(/\.json$/, '.ground_truth.json'));
      const expected = expectedEntries(file).map((e) =>
        ownUser ? { ...e, userUuid: groundTruthUser(e.userUuid, file) } : e,
      );
      expect(entries).toHaveLength(expected.length);
      expect(entries).toEqual(expected);
    },
  );

  it.each(REAL_FILES.map((f) => [basename(f), f]))(
    'When %s is gzipped, then the same entries come out',
    async (name, file) => {
      const gz = join(tmp, `${name}.gz`);
      writeFileSync(gz, gzipSync(readFileSync(file)));
      expect(withoutFile(await read(gz))).toEqual(withoutFile(expectedEntries(file)));
    },
  );

  it.each(REAL_FILES.map((f) => [basename(f), f]))(
    'When %s is mongoexport NDJSON with $binary ids and wrapped numbers, plain and gzipped, then the same entries come out',
    async (name, file) => {
      const ndjson = asMongoExport(file);
      const plain = join(tmp, `${name}.ndjson`);
      const gz = join(tmp, `${name}.jsonl.gz`);
      writeFileSync(plain, ndjson);
      writeFileSync(gz, gzipSync(ndjson));
      const skips: ImportSkip[] = [];
      const expected = withoutFile(expectedEntries(file));
      expect(withoutFile(await read(plain, { onSkip: (s) => skips.push(s) }))).toEqual(expected);
      expect(withoutFile(await read(gz, { onSkip: (s) => skips.push(s) }))).toEqual(expected);
      expect(skips).toEqual([]);
    },
  );

  it('When mongoexport NDJSON is named .json (its default), then the first byte still tells the format', async () => {
    const file = REAL_FILES[0] as string;
    const named = join(tmp, 'stage_timeseries.json');
    writeFileSync(named, asMongoExport(file));
    expect(withoutFile(await read(named))).toEqual(withoutFile(expectedEntries(file)));
  });
});

describe('readEmissionEntries on e-mission test days (a ground truth beside the file)', () => {
  const DAYS = join(emissionFixturesDir(), 'emission-real-days');
  const original = (day: string) => (expectedEntries(join(DAYS, `${day}.json`))[0] as EmissionEntry).userUuid;
  const usersOf = (entries: EmissionEntry[]) => [...new Set(entries.map((e) => e.userUuid))];

  it('When days sharing one uuid each have their ground truth beside them, then each day is a user of its own, the same on every run and wherever the folder is', async () => {
    const days = ['shankari_2015-08-23', 'shankari_2015-aug-27', 'shankari_2016-08-10'];
    expect(new Set(days.map(original)).size).toBe(1);
    const users: string[] = [];
    for (const where of ['gt-a', 'gt-b']) {
      const dir = join(tmp, where);
      mkdirSync(dir);
      for (const day of days) {
        copyFileSync(join(DAYS, `${day}.json`), join(dir, `${day}.json`));
        copyFileSync(join(DAYS, `${day}.ground_truth.json`), join(dir, `${day}.ground_truth.json`));
      }
      const entries = await read(dir);
      expect(entries).toHaveLength(days.reduce((n, day) => n + expectedEntries(join(DAYS, `${day}.json`)).length, 0));
      users.push(...usersOf(entries));
    }
    const expected = days.map((day) => groundTruthUser(original(day), `${day}.json`));
    expect(new Set(expected).size).toBe(3);
    expect(expected).not.toContain(original(days[0] as string));
    expect(users).toEqual([...expected, ...expected]);
  });

  it('When the day is gzipped, then it is the same user; without its ground truth, it keeps its uuid', async () => {
    const day = 'gabe_2016-06-15';
    const dir = join(tmp, 'gt-gz');
    mkdirSync(dir);
    writeFileSync(join(dir, `${day}.json.gz`), gzipSync(readFileSync(join(DAYS, `${day}.json`))));
    copyFileSync(join(DAYS, `${day}.ground_truth.json`), join(dir, `${day}.ground_truth.json`));
    copyFileSync(join(DAYS, `${day}.json`), join(dir, 'alone.json'));
    const entries = await read(dir);
    const byFile = (name: string) => usersOf(entries.filter((e) => basename(e.file) === name));
    expect(byFile('alone.json')).toEqual([original(day)]);
    expect(byFile(`${day}.json.gz`)).toEqual([groundTruthUser(original(day), `${day}.json`)]);
  });
});

describe('readEmissionEntries on a folder', () => {
  it('When a folder is walked, then dumps are read recursively in name order and other files are left out', async () => {
    const dir = join(tmp, 'walk');
    mkdirSync(join(dir, 'a-sub', 'deeper'), { recursive: true });
    const day = join(emissionFixturesDir(), 'emission-real-days/shankari_2015-08-23.json');
    const line = (n: number) =>
      JSON.stringify({ user_id: USER, metadata: { key: 'background/battery', n }, data: { ts: n } }) + '\n';
    writeFileSync(join(dir, 'b.ndjson'), line(2));
    writeFileSync(join(dir, 'a-sub', 'z.jsonl.gz'), gzipSync(line(1)));
    writeFileSync(join(dir, 'a-sub', 'deeper', 'day.json'), readFileSync(day));
    writeFileSync(join(dir, 'c.JSON'), `[${line(3)}]`);
    writeFileSync(join(dir, 'day.ground_truth.json'), readFileSync(day.replace('.json', '.ground_truth.json')));
    writeFileSync(join(dir, 'notes.txt'), 'not a dump');
    writeFileSync(join(dir, '.hidden.json'), line(9));
    writeFileSync(join(dir, 'profile.json'), '{\n  "user_id": "x"\n}\n');

    expect((await listDumpFiles(dir)).map((f) => f.path.slice(dir.length + 1))).toEqual([
      'a-sub/deeper/day.json',
      'a-sub/z.jsonl.gz',
      'b.ndjson',
      'c.JSON',
      'profile.json',
    ]);
    const skips: ImportSkip[] = [];
    const entries = await read(dir, { onSkip: (s) => skips.push(s) });
    const files = [...new Set(entries.map((e) => basename(e.file)))];
    expect(files).toEqual(['day.json', 'z.jsonl.gz', 'b.ndjson', 'c.JSON']);
    expect(entries).toHaveLength(413 + 3);
    expect(skips).toEqual([{ file: join(dir, 'profile.json'), reason: expect.stringMatching(/one JSON object/) }]);
  });

  it('When a ground truth is named explicitly, then it is refused by its shape', async () => {
    const skips: ImportSkip[] = [];
    const gt = join(emissionFixturesDir(), 'emission-real-days/shankari_2015-aug-27.ground_truth.json');
    expect(await read(gt, { onSkip: (s) => skips.push(s) })).toEqual([]);
    expect(skips).toHaveLength(1);
  });

  it('When a folder holds an empty file, then it yields nothing and reports nothing', async () => {
    const dir = join(tmp, 'empty');
    mkdirSync(dir);
    writeFileSync(join(dir, 'empty.ndjson'), '\n  \n');
    const skips: ImportSkip[] = [];
    expect(await read(dir, { onSkip: (s) => skips.push(s) })).toEqual([]);
    expect(skips).toEqual([]);
  });
});

describe('readEmissionEntries on damaged input', () => {
  const good = (n: number, user: unknown = { $uuid: USER }) =>
    JSON.stringify({ user_id: user, metadata: { key: 'background/battery', write_ts: n }, data: { ts: n } });

  it('When NDJSON lines are malformed, then each is reported with its line and the others are read', async () => {
    const file = join(tmp, 'damaged.ndjson');
    writeFileSync(
      file,
      [good(1), '{"user_id": broken', '', good(2), '[1, 2]', '{"metadata": {}}', good(3)].join('\r\n'),
    );
    const skips: ImportSkip[] = [];
    const entries = await read(file, { onSkip: (s) => skips.push(s) });
    expect(entries.map((e) => e.metadata['write_ts'])).toEqual([1, 2, 3]);
    expect(skips).toEqual([
      { file, line: 2, reason: expect.stringMatching(/^not JSON/) },
      { file, line: 5, reason: 'not a JSON object' },
      { file, line: 6, reason: 'metadata.key is not a non-empty string' },
    ]);
  });

  it('When the first two NDJSON lines are damaged, then the file is refused whole rather than line by line', async () => {
    const file = join(tmp, 'two-bad.ndjson');
    writeFileSync(file, ['{oops', '{oops', good(1)].join('\n'));
    const skips: ImportSkip[] = [];
    expect(await read(file, { onSkip: (s) => skips.push(s) })).toEqual([]);
    expect(skips).toHaveLength(1);
  });

  it('When the first NDJSON line alone is damaged, then only it is reported', async () => {
    const file = join(tmp, 'first-bad.ndjson');
    writeFileSync(file, ['{oops', good(1), good(2)].join('\n'));
    const skips: ImportSkip[] = [];
    expect(await read(file, { onSkip: (s) => skips.push(s) })).toHaveLength(2);
    expect(skips).toEqual([{ file, line: 1, reason: expect.stringMatching(/^not JSON/) }]);
  });

  it('When an array element is not an entry, then it is reported by its index', async () => {
    const file = join(tmp, 'odd-elements.json');
    writeFileSync(file, `[${good(1)}, 42, ${good(2)}]`);
    const skips: ImportSkip[] = [];
    expect(await read(file, { onSkip: (s) => skips.push(s) })).toHaveLength(2);
    expect(skips).toEqual([{ file, element: 1, reason: 'not a JSON object' }]);
  });

  it('When an array is cut off, then the entries before the cut are read and the rest is reported', async () => {
    const day = readFileSync(join(emissionFixturesDir(), 'emission-real-days/shankari_2015-08-23.json'));
    const file = join(tmp, 'cut.json');
    writeFileSync(file, day.subarray(0, Math.floor(day.length / 2)));
    const skips: ImportSkip[] = [];
    const entries = await read(file, { onSkip: (s) => skips.push(s) });
    expect(entries.length).toBeGreaterThan(100);
    expect(skips).toEqual([{ file, element: entries.length, reason: expect.stringMatching(/rest of the file/) }]);
  });

  it('When a gzip is truncated, then what could be read is yielded and the damage reported', async () => {
    const ndjson = Array.from({ length: 2000 }, (_, i) => good(i + 1)).join('\n');
    const gz = gzipSync(ndjson);
    const file = join(tmp, 'truncated.ndjson.gz');
    writeFileSync(file, gz.subarray(0, Math.floor(gz.length * 0.6)));
    const skips: ImportSkip[] = [];
    const entries = await read(file, { onSkip: (s) => skips.push(s) });
    expect(entries.length).toBeLessThan(2000);
    expect(skips).toHaveLength(1);
    expect(skips[0]?.reason).toMatch(/rest of the file/);
  });

  it('When a file starts with a BOM, then it is read as if it had none', async () => {
    const file = join(tmp, 'bom.json');
    writeFileSync(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`[${good(1)}]`)]));
    expect(await read(file)).toHaveLength(1);
  });

  it('When an entry has no user_id, then ImportFormatError names the file and line, unless a default user is given', async () => {
    const file = join(tmp, 'no-user.ndjson');
    writeFileSync(file, [good(1), good(2, null)].join('\n'));
    await expect(read(file)).rejects.toThrow(ImportFormatError);
    await expect(read(file)).rejects.toThrow(`${file}:2`);
    const other = 'ffffffff-0000-4000-8000-000000000009';
    const byString = await read(file, { defaultUser: other });
    expect(byString.map((e) => e.userUuid)).toEqual([USER, other]);
    const byFile = await read(file, { defaultUser: (f) => (f === file ? other : undefined) });
    expect(byFile.map((e) => e.userUuid)).toEqual([USER, other]);
  });

  it('When the path does not exist, then the I/O error is thrown, not reported as a skip', async () => {
    await expect(read(join(tmp, 'nowhere'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('readEmissionEntries progress and early stops', () => {
  it('When files are read, refused or cut, then onBytes adds up to their sizes on disk', async () => {
    const dir = join(tmp, 'bytes');
    mkdirSync(dir);
    const day = readFileSync(join(emissionFixturesDir(), 'emission-real-days/shankari_2016-08-10.json'));
    writeFileSync(join(dir, 'a.json'), day);
    writeFileSync(join(dir, 'b.json.gz'), gzipSync(day));
    writeFileSync(join(dir, 'c.json'), '{\n "not": "a dump"\n}\n');
    writeFileSync(join(dir, 'd.json'), day.subarray(0, 5000));
    let bytes = 0;
    await read(dir, { onBytes: (n) => (bytes += n) });
    const total = (await listDumpFiles(dir)).reduce((sum, f) => sum + f.bytes, 0);
    expect(bytes).toBe(total);
    expect(total).toBe(
      ['a.json', 'b.json.gz', 'c.json', 'd.json'].reduce((s, f) => s + statSync(join(dir, f)).size, 0),
    );
  });

  it('When the consumer stops early, then the reading ends without reading on', async () => {
    const file = join(emissionFixturesDir(), 'emission-real-days/shankari_2015-aug-27.json');
    let bytes = 0;
    let n = 0;
    for await (const _ of readEmissionFile(file, { onBytes: (b) => (bytes += b) }, statSync(file).size)) {
      if (++n === 3) break;
    }
    expect(n).toBe(3);
    expect(bytes).toBeLessThan(statSync(file).size);
  });
});
