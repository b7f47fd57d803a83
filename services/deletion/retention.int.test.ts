import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTimeseriesReader, upsertStatements } from '../../shared/timeseries/index.js';
import { seedLocations, writeAll } from '../../test/helpers/reads.js';
import { createTestEnv, type TestEnv } from '../../test/helpers/test-env.js';
import { applyRetention } from './retention.js';

/** Retention: raw locations past the age go, exactly, in both orderings; nothing else does. */

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.dispose();
});

const DAY = 1_700_006_400; // 2023-11-15T00:00:00Z
const users = async function* (ids: string[]) {
  yield* ids;
};

describe('retention', () => {
  it('When raw locations are older than the age, then exactly those go, a dry run first only counts them, and motion stays', async () => {
    const [user, other] = [randomUUID(), randomUUID()];
    // Three days of a location every 10 minutes (432), for two users; a motion entry every hour of the same days.
    const times = await seedLocations(env.cql, user, DAY + 300, 432, 600);
    await seedLocations(env.cql, other, DAY + 300, 432, 600);
    await writeAll(
      env.cql,
      Array.from({ length: 72 }, (_, i) =>
        upsertStatements({
          userId: user,
          key: 'background/motion_activity',
          type: 'sensor-data',
          writeTs: DAY + i * 3600,
          dataTs: DAY + i * 3600,
          oid: `m${i}`,
          entryJson: JSON.stringify({ metadata: { key: 'background/motion_activity' }, data: { ts: DAY + i * 3600 } }),
        }).map((r) => r.statement),
      ).flat(),
      40,
    );
    const cutoff = DAY + 86_400 + 12 * 3600; // the middle of the second day
    const past = times.filter((t) => t < cutoff).length;

    const dry = await applyRetention(env.cql, users([user]), { beforeTs: cutoff, dryRun: true });
    expect(dry.entries['background/location']).toBe(past);
    const reader = createTimeseriesReader(env.cql);
    const all = (key: string, timeKey: 'metadata.write_ts' | 'data.ts') =>
      reader.find(user, [key], timeKey, 0, 2e9).then((l) => l.map((e) => JSON.parse(e)));
    expect(await all('background/location', 'metadata.write_ts')).toHaveLength(432);

    const done = await applyRetention(env.cql, users([user]), { beforeTs: cutoff });
    expect(done.entries['background/location']).toBe(past);
    const byWrite = await all('background/location', 'metadata.write_ts');
    const byData = await all('background/location', 'data.ts');
    expect(byWrite.map((e) => e.metadata.write_ts)).toEqual(times.filter((t) => t >= cutoff));
    expect(byData.map((e) => e.metadata.write_ts)).toEqual(times.filter((t) => t >= cutoff));
    expect(await all('background/motion_activity', 'metadata.write_ts')).toHaveLength(72);
    expect(Object.values(await reader.countByKey(other)).reduce((a, b) => a + b, 0)).toBe(432);

    // The first day's index rows are gone with its entries; a second run finds nothing.
    const index = await env.cql.read('SELECT key, day FROM timeseries_days WHERE user_id = ?', [user]);
    const firstDay = Math.floor(DAY / 86_400);
    expect(index.rows.filter((r) => String(r['key']).endsWith('background/location') && r['day'] === firstDay)).toEqual(
      [],
    );
    expect((await applyRetention(env.cql, users([user]), { beforeTs: cutoff })).entries['background/location']).toBe(0);
  });
});
