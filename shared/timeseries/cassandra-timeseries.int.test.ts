import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../../test/helpers/test-env.js';
import { createTimeseriesReader, dayOf, upsertStatements, type StoredEntry } from './cassandra-timeseries.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.dispose();
});

const DAY = 86_400;
/** Midday of a UTC day, so an entry written a few hours off its data.ts stays on the day or crosses it as asked. */
const NOON = 19_000 * DAY + DAY / 2;

/** An entry of `key` sensed at `dataTs` and written `lagS` later, its JSON naming both so a test can tell them apart. */
function entry(userId: string, key: string, dataTs: number | null, lagS: number, type = 'sensor-data'): StoredEntry {
  const writeTs = (dataTs ?? NOON) + lagS;
  return {
    userId,
    key,
    type,
    writeTs,
    dataTs,
    oid: `${key}|${type}|${writeTs}`,
    entryJson: JSON.stringify({ metadata: { key, type, write_ts: writeTs }, data: { ts: dataTs } }),
  };
}

async function store(entries: readonly StoredEntry[]): Promise<void> {
  const rows = entries.flatMap(upsertStatements);
  for (let i = 0; i < rows.length; i += 100)
    await Promise.all(rows.slice(i, i + 100).map((r) => env.cql.write(r.statement.query, r.statement.params)));
}

const tsOf = (json: string) => (JSON.parse(json) as { data: { ts: number } }).data.ts;

describe('timeseries reads by data.ts', () => {
  it('When entries of two keys are read by data.ts, then they come once each in data.ts order, whatever day or order they were written in, with an entry written a day late and two types at one write time among them', async () => {
    const user = randomUUID();
    const entries = [
      entry(user, 'background/location', NOON + 30, 2),
      entry(user, 'background/location', NOON + 10, 2),
      entry(user, 'background/motion_activity', NOON + 20, 1),
      // Sensed before midnight, written after it: its data.ts day is not its write day.
      entry(user, 'background/location', NOON - DAY / 2 - 5, 60),
      // Pushed a day late: far apart in write order, between the others in data.ts order.
      entry(user, 'background/motion_activity', NOON + 25, DAY),
      // Same key and write time as the location at NOON + 10, another type (a write_ts shared across types).
      { ...entry(user, 'background/location', NOON + 12, 0, 'message'), writeTs: NOON + 12 },
      // No data.ts: never in the data.ts ordering.
      entry(user, 'background/location', null, 0),
      // Outside the range asked.
      entry(user, 'background/location', NOON + 5 * DAY, 2),
    ];
    await store(entries);
    const reader = createTimeseriesReader(env.cql);
    const keys = ['background/location', 'background/motion_activity'];

    const found = await reader.findTimed(user, keys, 'data.ts', NOON - DAY, NOON + DAY);

    expect(found.map((f) => f.ts)).toEqual([NOON - DAY / 2 - 5, NOON + 10, NOON + 12, NOON + 20, NOON + 25, NOON + 30]);
    expect(found.map((f) => tsOf(f.json))).toEqual(found.map((f) => f.ts));
    expect(found.filter((f) => f.json.includes('"message"'))).toHaveLength(1);
    expect(dayOf(NOON - DAY / 2 - 5)).not.toBe(dayOf(NOON - DAY / 2 + 55));
    // The newest first, cut by a limit, still in ascending order.
    expect(
      (await reader.findTimed(user, keys, 'data.ts', NOON - DAY, NOON + DAY, { limit: 2, newestFirst: true })).map(
        (f) => f.ts,
      ),
    ).toEqual([NOON + 25, NOON + 30]);
    // A limit sets the page size (here 4 places), and the earliest four come whatever partition they are in.
    expect(
      (await reader.findTimed(user, keys, 'data.ts', NOON - DAY, NOON + DAY, { limit: 4 })).map((f) => f.ts),
    ).toEqual([NOON - DAY / 2 - 5, NOON + 10, NOON + 12, NOON + 20]);
  });

  it('When a read by data.ts crosses pages of places and an entry on each side of a page boundary was deleted from the write ordering meanwhile, then the rest come in order and the deleted ones are left out', async () => {
    const user = randomUUID();
    // 2,500 places: two pages of 2,000, the first looked up in four requests of at most 500 write times.
    const entries = Array.from({ length: 2_500 }, (_, i) => entry(user, 'background/location', NOON + i, i % 7));
    await store(entries);
    const gone = [entries[1_999]!, entries[2_000]!];
    for (const e of gone)
      await env.cql.write(
        'DELETE FROM timeseries WHERE user_id = ? AND key = ? AND day = ? AND write_ts = ? AND type = ?',
        [user, e.key, dayOf(e.writeTs), e.writeTs, e.type],
      );

    const found = await createTimeseriesReader(env.cql).find(
      user,
      ['background/location'],
      'data.ts',
      NOON,
      NOON + DAY,
    );

    expect(found.map(tsOf)).toEqual(entries.filter((e) => !gone.includes(e)).map((e) => e.dataTs));
  });

  it('When an entry is pushed again under the same identity with another data.ts, then a read by data.ts returns it once, at its data.ts now', async () => {
    const user = randomUUID();
    const first = entry(user, 'background/location', NOON, 30);
    const again = { ...first, dataTs: NOON + 20, entryJson: JSON.stringify({ data: { ts: NOON + 20 } }) };
    await store([first, again]);

    const found = await createTimeseriesReader(env.cql).findTimed(
      user,
      ['background/location'],
      'data.ts',
      NOON - DAY,
      NOON + DAY,
    );

    expect(found).toEqual([{ ts: NOON + 20, json: again.entryJson }]);
  });

  it('When the data.ts ordering holds rows of the earlier layout, each with its entry copied in, beside rows without, then both lead to their entries', async () => {
    const user = randomUUID();
    const key = 'background/location';
    const [earlier, later] = [entry(user, key, NOON, 3), entry(user, key, NOON + 60, 3)];
    await store([later]);
    // As a converter of the earlier layout wrote it: the entry in both orderings.
    for (const row of upsertStatements(earlier)) await env.cql.write(row.statement.query, row.statement.params);
    await env.cql.write(
      'INSERT INTO timeseries_by_data_ts (user_id, key, day, data_ts, write_ts, type, entry) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [user, key, dayOf(NOON), NOON, earlier.writeTs, earlier.type, earlier.entryJson],
    );

    const found = await createTimeseriesReader(env.cql).find(user, [key], 'data.ts', NOON - DAY, NOON + DAY);

    expect(found).toEqual([earlier.entryJson, later.entryJson]);
  });
});
