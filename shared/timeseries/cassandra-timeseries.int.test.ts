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
    // A limit smaller than the page is read past one page of places, nothing lost between pages.
    expect(
      (await reader.findTimed(user, keys, 'data.ts', NOON - DAY, NOON + DAY, { limit: 4 })).map((f) => f.ts),
    ).toEqual([NOON - DAY / 2 - 5, NOON + 10, NOON + 12, NOON + 20]);
  });

  it('When a page of the data.ts ordering spans many entries and one was deleted from the write ordering meanwhile, then the rest come in order and the deleted one is left out', async () => {
    const user = randomUUID();
    const entries = Array.from({ length: 1_200 }, (_, i) => entry(user, 'background/location', NOON + i, i % 7));
    await store(entries);
    const gone = entries[600]!;
    await env.cql.write(
      'DELETE FROM timeseries WHERE user_id = ? AND key = ? AND day = ? AND write_ts = ? AND type = ?',
      [user, gone.key, dayOf(gone.writeTs), gone.writeTs, gone.type],
    );

    const found = await createTimeseriesReader(env.cql).find(
      user,
      ['background/location'],
      'data.ts',
      NOON,
      NOON + DAY,
    );

    expect(found.map(tsOf)).toEqual(entries.filter((e) => e !== gone).map((e) => e.dataTs));
  });
});
