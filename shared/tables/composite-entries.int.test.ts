import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../../test/helpers/test-env.js';
import { createCompositeEntriesTable, type CompositeEntriesTable } from './composite-entries.js';

let env: TestEnv;
let table: CompositeEntriesTable;
beforeAll(async () => {
  env = await createTestEnv();
  table = createCompositeEntriesTable(env.cql);
});
afterAll(async () => {
  await env?.dispose();
});

const trip = (id: string, endTs: number, label?: string) => ({
  _id: { $oid: id },
  metadata: { key: 'analysis/composite_trip' },
  data: { start_ts: endTs - 600, end_ts: endTs, user_input: label ? { mode_confirm: label } : {} },
});

async function all(userId: string, from = 0, to = 2e9, newestFirst = false) {
  const out: Array<{ endTs: number; localDate: string; entry: unknown }> = [];
  for await (const r of table.range(userId, from, to, { newestFirst, pageSize: 2 }))
    out.push({ endTs: r.endTs, localDate: r.localDate, entry: JSON.parse(r.json) });
  return out;
}

describe('composite entries', () => {
  it('When a day is rendered again with one label changed, then only that entry is written and reads see the new day', async () => {
    const user = randomUUID();
    const day = [trip('a', 1000), trip('b', 2000), trip('c', 3000)];
    expect(await table.saveDay(user, '2024-01-01', day)).toEqual({ written: 3, deleted: 0 });
    expect(await table.saveDay(user, '2024-01-01', day)).toEqual({ written: 0, deleted: 0 });

    const relabelled = [trip('a', 1000), trip('b', 2000, 'bus'), trip('c', 3000)];
    expect(await table.saveDay(user, '2024-01-01', relabelled)).toEqual({ written: 1, deleted: 0 });
    expect((await all(user)).map((r) => r.entry)).toEqual(relabelled);
  });

  it('When a rebuild moves or drops trips, then the old entries are gone and other dates are untouched', async () => {
    const user = randomUUID();
    await table.saveDay(user, '2024-01-01', [trip('a', 1000), trip('b', 2000)]);
    await table.saveDay(user, '2024-01-02', [trip('z', 90_000)]);
    expect(await table.saveDay(user, '2024-01-01', [trip('a', 1500)])).toEqual({ written: 1, deleted: 2 });
    expect((await all(user)).map((r) => [r.endTs, r.localDate])).toEqual([
      [1500, '2024-01-01'],
      [90_000, '2024-01-02'],
    ]);
    expect(await table.saveDay(user, '2024-01-01', [])).toEqual({ written: 0, deleted: 1 });
    expect((await all(user)).map((r) => r.endTs)).toEqual([90_000]);
  });

  it('When a rebuild moves a trip to the next date, then whichever date is rendered first, the trip stays, once', async () => {
    for (const order of [
      ['2024-01-02', '2024-01-01'],
      ['2024-01-01', '2024-01-02'],
    ]) {
      const user = randomUUID();
      await table.saveDay(user, '2024-01-01', [trip('a', 1000)]);
      const renders: Record<string, ReturnType<typeof trip>[]> = {
        '2024-01-01': [],
        '2024-01-02': [trip('a', 1000), trip('b', 2000)],
      };
      for (const date of order) await table.saveDay(user, date, renders[date]!);
      expect((await all(user)).map((r) => [r.endTs, r.localDate])).toEqual([
        [1000, '2024-01-02'],
        [2000, '2024-01-02'],
      ]);
    }
  });

  it('When read by a range, newest first, then exactly the entries ending in it come, and never a manifest', async () => {
    const user = randomUUID();
    await table.saveDay(user, '2024-01-01', [trip('a', 1000), trip('b', 2000), trip('c', 3000)]);
    expect((await all(user, 2000, 3000, true)).map((r) => r.endTs)).toEqual([3000, 2000]);
    expect((await all(user, -10, 1000)).map((r) => r.endTs)).toEqual([1000]);
  });

  it('When a user is removed, then nothing of theirs is left and another user keeps theirs', async () => {
    const [gone, kept] = [randomUUID(), randomUUID()];
    await table.saveDay(gone, '2024-01-01', [trip('a', 1000)]);
    await table.saveDay(kept, '2024-01-01', [trip('a', 1000)]);
    await table.removeUser(gone);
    expect(await all(gone, -1e9)).toEqual([]);
    expect(await table.saveDay(gone, '2024-01-01', [trip('a', 1000)])).toEqual({ written: 1, deleted: 0 });
    expect(await all(kept)).toHaveLength(1);
  });
});
