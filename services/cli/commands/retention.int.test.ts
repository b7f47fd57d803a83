import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProgramConfigsTable, createUsersTable } from '../../../shared/tables/index.js';
import { createTimeseriesReader } from '../../../shared/timeseries/index.js';
import { runCli } from '../../../test/helpers/pipeline.js';
import { seedLocations } from '../../../test/helpers/reads.js';
import { createTestEnv, type TestEnv } from '../../../test/helpers/test-env.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.dispose();
});

describe('npx itinera retention, with stored documents today’s schema refuses', () => {
  it("When a program's stored document fails the schema elsewhere, then its own days still count; when its days cannot be read, then its participants are skipped, not given the deployment's", async () => {
    const table = createProgramConfigsTable(env.cql);
    // Written as an older Itinera saved them: the table takes any text, the programs' manager would refuse these.
    const stored = { version: 1, changedAt: new Date(), changedBy: 'operator', note: '' };
    const oldSubgroup = { version: 1, opcode: { subgroups: ['a_b'] }, itinera: { raw_location_days: 8 } };
    await table.add({ ...stored, program: 'older', document: JSON.stringify(oldSubgroup) });
    await table.add({ ...stored, program: 'torn', document: '{"version": 1, "itinera": {"raw_location_days": 30' });
    const users = createUsersTable(env.cql, { cacheEntries: 10 });
    const now = Math.floor(Date.now() / 1000);
    const uuidOf: Record<string, string> = {};
    for (const token of ['nrelop_older_default_r1', 'nrelop_torn_default_r2', 'plain@example.org']) {
      uuidOf[token] = (await users.register(token)).user.uuid;
      // One location a day for the last ten days.
      await seedLocations(env.cql, uuidOf[token]!, now - 10 * 86_400 + 60, 10, 86_400);
    }
    const printed = await runCli(env, ['retention'], { ITINERA_RAW_LOCATION_DAYS: '5' });
    expect(printed).toMatch(/1 users kept 8 days/);
    expect(printed).toMatch(/1 users of program torn skipped/);
    const left = async (token: string) =>
      (await createTimeseriesReader(env.cql).countByKey(uuidOf[token]!))['background/location'] ?? 0;
    expect(await left('nrelop_older_default_r1')).toBe(8);
    expect(await left('nrelop_torn_default_r2')).toBe(10);
    expect(await left('plain@example.org')).toBe(5);
  });
});
