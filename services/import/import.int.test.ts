import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTimeseriesReader } from '../../shared/timeseries/index.js';
import { createConsoleTokensTable, createUsersTable } from '../../shared/tables/index.js';
import { runCli, startInProcessPipeline, type InProcessPipeline } from '../../test/helpers/pipeline.js';
import { DAY_OF, loadGroundTruth, loadRealDay, REAL_DAYS } from '../../test/helpers/real-days.js';
import { emissionFixturesDir } from '../../test/helpers/fixtures.js';
import { waitFor } from '../../test/helpers/test-env.js';
import { settledTrips } from '../../test/helpers/trips.js';
import { groundTruthUser } from './dump/ground-truth-day.js';

/**
 * Migration from e-mission: `itinera import` of e-mission's own exports (a folder, one file
 * gzipped) pushes them through Kafka, the converter and the trip builder; run twice, it stores one copy, and the
 * trips are e-mission's ground truth, as `compare` reports.
 */

/** Every shared real day: one gzipped, the others as e-mission exported them. */
const DAYS = REAL_DAYS;

let pipeline: InProcessPipeline;
beforeAll(async () => {
  pipeline = await startInProcessPipeline();
});
afterAll(async () => {
  await pipeline?.stop();
});

/**
 * Each day has its ground truth beside it, so it is imported as a user of its own, as e-mission's tests load each
 * file under a fresh uuid to make that ground truth (setupRealExample): three of the days share one phone's uuid.
 */
const uuidOf = (day: string) => {
  const hex = (loadRealDay(day)[0] as unknown as { user_id: { $uuid: string } }).user_id.$uuid;
  const original = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return groundTruthUser(original, `${day}.json`);
};
/** Distinct entry identities of a day: what the timeseries keeps one row each of. */
const identities = (day: string) =>
  new Set(
    loadRealDay(day).map((e) => `${e.metadata.key}|${(e.metadata as { type?: string }).type}|${e.metadata.write_ts}`),
  ).size;

describe('import from e-mission', () => {
  it('When an e-mission dump is imported twice, then each entry is stored once, the trips are e-mission’s, and compare says how many', async () => {
    const { env, gw } = pipeline;
    const dir = mkdtempSync(join(tmpdir(), 'itinera-import-'));
    const source = (day: string) => join(emissionFixturesDir(), 'emission-real-days', `${day}.json`);
    writeFileSync(join(dir, `${DAYS[0]}.json.gz`), gzipSync(readFileSync(source(DAYS[0]))));
    for (const day of DAYS.slice(1)) copyFileSync(source(day), join(dir, `${day}.json`));
    // e-mission's expected trips beside each dump, as its tests keep them: what `compare` reads (import skips them).
    for (const day of DAYS)
      copyFileSync(
        join(emissionFixturesDir(), 'emission-real-days', `${day}.ground_truth.json`),
        join(dir, `${day}.ground_truth.json`),
      );

    const first = await runCli(env, ['import', dir]);
    expect(first).toMatch(/imported 5 users: \d+ entries pushed/);
    const second = await runCli(env, ['import', dir]);
    expect(second).toMatch(/imported 5 users/);

    const timeseries = createTimeseriesReader(env.cql);
    let [matched, expected] = [0, 0];
    for (const day of DAYS) {
      const uuid = uuidOf(day);
      const entries = identities(day);
      const stored = await waitFor(
        async () => {
          const n = Object.values(await timeseries.countByKey(uuid)).reduce((a, b) => a + b, 0);
          return n >= entries ? n : undefined;
        },
        60_000,
        `${day}'s entries stored`,
      );
      expect(stored).toBe(entries);

      // Without a Stage_uuids mapping, the participant's token is the uuid.
      const truth = loadGroundTruth(day).map((t) => t.properties);
      const trips = await settledTrips(gw, uuid, DAY_OF[day], truth.length);
      expected += truth.length;
      matched += truth.filter((t) =>
        trips.some(
          (b: any) =>
            Math.abs(b.properties.start_ts - t['start_ts']) <= 60 && Math.abs(b.properties.end_ts - t['end_ts']) <= 60,
        ),
      ).length;
    }
    expect(new Set(DAYS.map(uuidOf)).size).toBe(DAYS.length);
    expect(expected).toBe(30);
    expect(matched).toBe(expected);

    const compared = await runCli(env, ['compare', dir]);
    console.log(`itinera compare on the shared days:\n${compared}`);
    for (const day of DAYS) expect(compared).toContain(`${uuidOf(day)}\t${DAY_OF[day]}`);
    for (const day of DAYS)
      expect(compared).toMatch(new RegExp(`^#   ${day}\\.json(\\.gz)? as user ${uuidOf(day)}$`, 'm'));
    expect(compared).toContain(`total: ${matched} of ${expected} e-mission trips matched (100%)`);
  });

  it('When a dump is imported into a program with its configuration, then the program exists and every user is its participant; a mapping naming another program imports nothing', async () => {
    const { env } = pipeline;
    const dir = mkdtempSync(join(tmpdir(), 'itinera-import-program-'));
    const day = DAYS[1]!;
    // Under a name of its own, with its ground truth beside it: a user of its own, apart from the test above.
    const file = `moved-${day}.json`;
    const fixtures = join(emissionFixturesDir(), 'emission-real-days');
    copyFileSync(join(fixtures, `${day}.json`), join(dir, file));
    copyFileSync(join(fixtures, `${day}.ground_truth.json`), join(dir, `moved-${day}.ground_truth.json`));
    const hex = (loadRealDay(day)[0] as unknown as { user_id: { $uuid: string } }).user_id.$uuid;
    const original = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    const uuid = groundTruthUser(original, file);
    const config = join(tmpdir(), `itinera-import-config-${Date.now()}.json`);
    // `version` last: a rerun with the same file must find the same document whatever the stored key order.
    writeFileSync(config, JSON.stringify({ url_abbreviation: 'moved', opcode: { autogen: false }, version: 3 }));
    const users = createUsersTable(env.cql, { cacheEntries: 1 });

    const mapping = join(dir, 'Stage_uuids.ndjson');
    writeFileSync(
      mapping,
      `${JSON.stringify({ user_email: 'someone@example.org', uuid: { $uuid: uuid.replace(/-/g, '') } })}\n`,
    );
    const refused = await runCli(env, [
      'import',
      join(dir, file),
      '--uuids',
      mapping,
      '--program',
      'moved',
      '--config',
      config,
    ]).catch((e) => e);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/1 tokens of the uuids mapping do not name program moved .*nothing was imported/);
    expect(await users.findByUuid(uuid)).toBeUndefined();

    const printed = await runCli(env, ['import', join(dir, file), '--program', 'moved', '--config', config]);
    expect(printed).toMatch(/imported 1 users/);
    expect(JSON.parse(await runCli(env, ['program', 'show', 'moved']))).toMatchObject({
      version: 3,
      url_abbreviation: 'moved',
    });
    const account = await users.findByUuid(uuid);
    const token = account?.userEmail;
    expect(token).toMatch(/^nrelop_moved_default_[A-Za-z0-9]{32}$/);
    // The program takes only issued tokens: the moved phone's is one, or it could not sync any more.
    expect(await createConsoleTokensTable(env.cql).isIssued(token!)).toBe(true);
    // The account keeps its age from where it came (its earliest entry), which the aggregates' history rule reads.
    const firstWrite = Math.min(...loadRealDay(day).map((e) => e.metadata.write_ts));
    expect(account!.createTs.getTime()).toBe(Math.round(firstWrite * 1000));
    const compared = await runCli(env, ['compare', join(dir, file)]);
    expect(compared).toMatch(/^program moved: \d+ of [1-9]\d* e-mission trips matched/m);
    // A rerun keeps the account and its token.
    await runCli(env, ['import', join(dir, file), '--program', 'moved', '--config', config]);
    expect((await users.findByUuid(uuid))?.userEmail).toBe(token);
  });

  it("When a dump names an existing account's uuid under another token, then nothing is added to that account unless --merge says so", async () => {
    const { env, gw } = pipeline;
    const created = await gw.post('/profile/create', { user: 'victim@example.org' });
    const victim = created.body.uuid as string;
    const raw = loadRealDay(DAYS[0]!)
      .filter((e) => e.metadata.key === 'background/location')
      .slice(0, 3)
      .map((e) => ({ ...e, user_id: { $uuid: victim.replace(/-/g, '') } }));
    const dir = mkdtempSync(join(tmpdir(), 'itinera-import-crafted-'));
    writeFileSync(join(dir, 'crafted.json'), JSON.stringify(raw));
    const stored = async () =>
      Object.values(await createTimeseriesReader(env.cql).countByKey(victim)).reduce((a, b) => a + b, 0);

    const refused = await runCli(env, ['import', join(dir, 'crafted.json')]);
    expect(refused).toMatch(/imported 0 users: 0 entries pushed/);
    expect(refused).toContain(`user ${victim} cannot be imported`);
    const merged = await runCli(env, ['import', join(dir, 'crafted.json'), '--merge']);
    expect(merged).toMatch(/imported 1 users: 3 entries pushed/);
    await waitFor(async () => ((await stored()) === 3 ? true : undefined), 30_000, 'the merged entries');
    expect(await stored()).toBe(3);
  });

  it('When --uuid and --token name one user and an account, then only that user’s entries go into the account, whatever their uuid in the dump', async () => {
    const { env, gw } = pipeline;
    const [alice, bob] = ['a11ce000000040008000000000000001', 'b0b00000000040008000000000000002'];
    const located = loadRealDay(DAYS[0]!).filter((e) => e.metadata.key === 'background/location');
    const dump = [
      ...located.slice(0, 4).map((e) => ({ ...e, user_id: { $uuid: alice } })),
      ...located.slice(4, 6).map((e) => ({ ...e, user_id: { $uuid: bob } })),
    ];
    const dir = mkdtempSync(join(tmpdir(), 'itinera-import-one-'));
    writeFileSync(join(dir, 'two-users.json'), JSON.stringify(dump));
    // The participant's account exists already, under a uuid of its own.
    const account = (await gw.post('/profile/create', { user: 'moving-phone@example.org' })).body.uuid as string;
    const stored = async (uuid: string) =>
      Object.values(await createTimeseriesReader(env.cql).countByKey(uuid)).reduce((a, b) => a + b, 0);
    const asUuid = (h: string) =>
      `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;

    const printed = await runCli(env, [
      'import',
      join(dir, 'two-users.json'),
      '--uuid',
      asUuid(bob),
      '--token',
      'moving-phone@example.org',
    ]);
    expect(printed).toMatch(/imported 1 users: 2 entries pushed/);
    expect(printed).toContain(`an entry of user ${asUuid(alice)}, not of ${asUuid(bob)}`);
    await waitFor(async () => ((await stored(account)) === 2 ? true : undefined), 30_000, 'bob’s entries');
    expect([await stored(asUuid(alice)), await stored(asUuid(bob))]).toEqual([0, 0]);
    await expect(runCli(env, ['import', join(dir, 'two-users.json'), '--token', asUuid(alice)])).rejects.toThrow(
      /reserved for accounts imported without one/,
    );
  });
});
