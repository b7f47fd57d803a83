import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTimeseriesReader, upsertStatements } from '../../shared/timeseries/index.js';
import { seedLocations, writeAll } from '../../test/helpers/reads.js';
import { createTestEnv, type TestEnv } from '../../test/helpers/test-env.js';
import { runCli } from '../../test/helpers/pipeline.js';
import { createProgramConfigsTable, createUsersTable } from '../../shared/tables/index.js';
import { createProgramManager } from '../../shared/programs/manage-programs.js';
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

describe('retention per program', () => {
  it("When a program keeps raw locations for fewer days than the deployment, then its participants' go sooner, and a program that keeps them keeps them", async () => {
    const programs = createProgramManager(createProgramConfigsTable(env.cql));
    const by = 'operator@itinera.test';
    const settings = (days: number) => JSON.stringify({ version: 1, itinera: { raw_location_days: days } });
    await programs.create({ program: 'brief', document: settings(2), by });
    await programs.create({ program: 'archive', document: settings(0), by });
    const usersTable = createUsersTable(env.cql, { cacheEntries: 10 });
    const now = Math.floor(Date.now() / 1000);
    const seeded: Record<string, string> = {};
    for (const token of ['nrelop_brief_default_r1', 'nrelop_archive_default_r2', 'plain@example.org']) {
      const { user } = await usersTable.register(token);
      seeded[token] = user.uuid;
      // One location a day for the last ten days.
      await seedLocations(env.cql, user.uuid, now - 10 * 86_400 + 60, 10, 86_400);
    }
    // The deployment keeps five days here (the CLI's configuration is the environment's).
    const printed = await runCli(env, ['retention'], { ITINERA_RAW_LOCATION_DAYS: '5' });
    expect(printed).toMatch(/1 users kept 2 days/);
    expect(printed).toMatch(/1 users whose raw locations are kept \(0 days\)/);
    const left = async (token: string) =>
      (await createTimeseriesReader(env.cql).countByKey(seeded[token]!))['background/location'] ?? 0;
    expect(await left('nrelop_brief_default_r1')).toBe(2);
    expect(await left('nrelop_archive_default_r2')).toBe(10);
    expect(await left('plain@example.org')).toBe(5);
  });
});
