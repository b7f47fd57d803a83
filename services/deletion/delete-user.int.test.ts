import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../test/helpers/gateway.js';
import { runCli, startInProcessPipeline, type InProcessPipeline } from '../../test/helpers/pipeline.js';
import { readTopicRaw, topicSize } from '../../test/helpers/read-topic.js';
import { groupName, topicName } from '../../shared/events/index.js';
import { groupProgress } from '../../shared/kafka/index.js';
import { DAY_OF, phoneEntries } from '../../test/helpers/real-days.js';
import { serviceEnv, waitFor, type TestEnv } from '../../test/helpers/test-env.js';
import { compositeTrips, pushEntries, settledTrips, userInput } from '../../test/helpers/trips.js';

/**
 * Account deletion: after a user's own POST /profile/delete, or an operator's
 * `itinera delete-user`, no table holds a row of theirs (each table is read whole, so a table added later without
 * a removal fails here), the compacted topic holds tombstones for their documents, the token answers 403, and
 * another user's data is exactly as it was.
 */

const DAY = 'shankari_2016-08-10';
const TRIPS = 4;

let pipeline: InProcessPipeline;
let env: TestEnv;
let gw: RunningGateway;
beforeAll(async () => {
  // A token deleted by an operator's command stops working on this gateway within a second.
  pipeline = await startInProcessPipeline({ WEBSERVER_USER_CACHE_TTL_S: '1' });
  ({ env, gw } = pipeline);
});
afterAll(async () => {
  await pipeline?.stop();
});

/** A user with every kind of data: a day of trips, a label, a custom label, a profile field, a dead letter. */
async function fullUser(token: string): Promise<string> {
  const created = await gw.post('/profile/create', { user: token });
  expect(created.status).toBe(200);
  await pushEntries(gw, token, phoneEntries(DAY));
  await settledTrips(gw, token, DAY_OF[DAY], TRIPS);
  const trips = await compositeTrips(gw, token);
  await pushEntries(gw, token, [
    userInput('manual/mode_confirm', { start: trips[0].data.start_ts, end: trips[0].data.end_ts }, { label: 'bike' }),
    // No data.ts: the converter dead-letters it.
    {
      metadata: { key: 'background/location', type: 'sensor-data', platform: 'android', write_ts: 1_470_000_000 },
      data: { latitude: 39.6, longitude: -104.9 },
    },
  ]);
  await waitFor(
    async () => ((await compositeTrips(gw, token))[0]?.data.user_input?.mode_confirm === 'bike' ? true : undefined),
    60_000,
    'the label in its trip',
  );
  expect(
    (await gw.post('/customlabel/insert', { user: token, inserted_label: { key: 'mode', label: 'unicycle' } })).status,
  ).toBe(200);
  expect((await gw.post('/profile/update', { user: token, update_doc: { curr_platform: 'android' } })).status).toBe(
    200,
  );
  return created.body.uuid as string;
}

/** Rows of `uuid` in every table of the keyspace, by table (user_id or uuid column), read whole. */
async function rowsOf(uuid: string): Promise<Record<string, number>> {
  const tables = await env.cql.read('SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?', [
    env.config.cassandra.keyspace,
  ]);
  const counts: Record<string, number> = {};
  for (const { table_name: table } of tables.rows) {
    if (table === 'schema_migrations') continue;
    let n = 0;
    for await (const row of env.cql.iterate(`SELECT * FROM ${String(table)}`, [], 5000))
      if (String(row['user_id'] ?? row['uuid']) === uuid) n += 1;
    counts[String(table)] = n;
  }
  return counts;
}

describe('account deletion', () => {
  it('When a user deletes their account, then no table holds a row of theirs, the token gets 403, and another user is untouched', async () => {
    const [goneToken, keptToken] = ['delete-me@example.org', 'keep-me@example.org'];
    const gone = await fullUser(goneToken);
    const kept = await fullUser(keptToken);
    await waitFor(
      async () => ((await rowsOf(gone))['error_timeseries'] === 1 ? true : undefined),
      30_000,
      'a dead letter',
    );
    const before = await rowsOf(gone);
    const keptBefore = await rowsOf(kept);
    // Every table that holds user data holds some of this user's (so the check below proves something).
    for (const table of [
      'timeseries',
      'timeseries_by_data_ts',
      'timeseries_days',
      'trip_index',
      'trips_by_day',
      'composite_entries',
      'diary_days',
      'section_metrics',
      'label_trip_metrics',
      'trip_label_counts',
      'pipeline_state',
      'trip_builder_state',
      'usercache_documents',
      'error_timeseries',
      'profiles',
      'custom_labels',
      'users_by_email',
      'users_by_uuid',
    ])
      expect(before[table], table).toBeGreaterThan(0);
    const diaryBefore = await topicSize(env, 'diary');

    // Reachable from a network while tokens are e-mails (auth skip), the same calls are refused and change nothing.
    const exposed = await startGateway(env, {
      config: { ...env.config, webserver: { ...env.config.webserver, auth: 'skip', host: '0.0.0.0' } },
    });
    try {
      for (const path of ['/profile/delete', '/export/ndjson']) {
        const refused = await exposed.post(path, { user: goneToken });
        expect(refused.status, path).toBe(403);
        expect(JSON.stringify(refused.body), path).toContain('needs real authentication');
      }
    } finally {
      await exposed.close();
    }
    expect(await rowsOf(gone)).toEqual(before);

    const res = await gw.post('/profile/delete', { user: goneToken });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ deleted: true });
    expect(res.body.documents).toBeGreaterThan(0);

    const after = await rowsOf(gone);
    // The one row kept: the mark that makes the converter and trip builder drop what still arrives.
    expect(Object.entries(after).filter(([, n]) => n > 0)).toEqual([['deleted_users', 1]]);
    expect(await rowsOf(kept)).toEqual(keptBefore);

    expect((await gw.post('/profile/get', { user: goneToken })).status).toBe(403);
    expect((await gw.post('/usercache/put', { user: goneToken, phone_to_server: [] })).status).toBe(403);

    // Tombstones for every document of the user, and nothing else sent.
    const records = await readTopicRaw(env, 'diary', diaryBefore + res.body.documents);
    const tombstones = records.filter((r) => r.value === null);
    expect(tombstones).toHaveLength(res.body.documents);
    expect(tombstones.every((t) => t.key.startsWith(`${gone}|`))).toBe(true);
  });

  it('When an operator deletes a user (and revokes the token), then it asks for --yes first, the audit lines name no participant, and the token cannot register again', async () => {
    const token = 'operator-deletes@example.org';
    const created = await gw.post('/profile/create', { user: token });
    const uuid = created.body.uuid as string;
    await pushEntries(gw, token, phoneEntries(DAY).slice(0, 50));
    await waitFor(async () => ((await rowsOf(uuid))['timeseries']! > 0 ? true : undefined), 30_000, 'entries stored');

    const unconfirmed = await (async () => {
      try {
        await runCli(env, ['delete-user', token]);
        return '';
      } catch (err) {
        return String((err as { stdout?: Buffer }).stdout);
      }
    })();
    expect(unconfirmed).toMatch(/would delete user .* run again with --yes/);
    expect((await rowsOf(uuid))['timeseries']).toBeGreaterThan(0);

    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'services/cli/main.ts', 'delete-user', token, '--yes', '--revoke-token'],
      {
        env: serviceEnv(env),
        encoding: 'utf8',
      },
    );
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`deleted user ${uuid}: \\d+ timeseries partitions`));
    const audit = run.stderr.split('\n').find((l) => l.includes('account-deleted'));
    expect(JSON.parse(audit ?? '{}')).toMatchObject({ audit: 'account-deleted', userId: uuid, by: 'operator' });
    expect(audit).not.toContain(token);
    const revocation = run.stderr.split('\n').find((l) => l.includes('Tokens revoked'));
    expect(JSON.parse(revocation ?? '{}')).toMatchObject({ reason: 'account deleted', revoked: [expect.any(String)] });
    expect(revocation).not.toContain(token);
    expect(Object.entries(await rowsOf(uuid)).filter(([table, n]) => n > 0 && table !== 'deleted_users')).toEqual([]);
    await waitFor(
      async () => ((await gw.post('/profile/get', { user: token })).status === 403 ? true : undefined),
      10_000,
      'the token refused',
    );
    // Revoked: registering it again is refused too (a deleted token without --revoke-token starts a new account).
    const again = await gw.post('/profile/create', { user: token });
    expect([again.status, again.body.error.message]).toEqual([403, 'invalid token: revoked by an operator']);
  });

  it('When accounts are deleted while their puts are converted and their trips rebuilt, then nothing of theirs is left, every time', async () => {
    const entries = phoneEntries(DAY);
    const half = Math.floor(entries.length / 2);
    const admin = env.kafka.admin();
    await admin.connect();
    /** Until the converter and the trip builder have handled every record sent so far. */
    const drained = async () => {
      const prefix = env.config.kafka.topicPrefix;
      for (const [group, topic] of [
        ['converter', 'usercache'],
        ['tripBuilder', 'timeseries'],
      ] as const)
        await waitFor(
          async () => {
            const p = await groupProgress(admin, groupName(prefix, group), topicName(prefix, topic));
            return p.committed >= p.high ? true : undefined;
          },
          60_000,
          `the ${group} caught up`,
        );
    };
    try {
      for (let round = 0; round < 4; round += 1) {
        const token = `deleted-mid-stream-${round}@example.org`;
        const created = await gw.post('/profile/create', { user: token });
        const uuid = created.body.uuid as string;
        // Odd rounds: the first half is built into trips before the rest comes, so the workers already believe
        // the account alive (their cache) when the deletion lands in the middle of the second half's rebuild.
        if (round % 2 === 1) {
          await pushEntries(gw, token, entries.slice(0, half), 2000);
          await waitFor(async () => ((await compositeTrips(gw, token)).length > 0 ? true : undefined), 60_000);
        }
        const from = round % 2 === 1 ? half : 0;
        expect((await gw.post('/usercache/put', { user: token, phone_to_server: entries.slice(from) })).status).toBe(
          200,
        );
        expect((await gw.post('/profile/delete', { user: token })).status).toBe(200);
        await drained();
        const left = Object.entries(await rowsOf(uuid)).filter(([table, n]) => n > 0 && table !== 'deleted_users');
        expect(left, `round ${round}`).toEqual([]);
        // On the compacted diary topic, the last record of every document of the user is its tombstone.
        const records = await readTopicRaw(env, 'diary', await topicSize(env, 'diary'));
        const last = new Map<string, Buffer | null>();
        for (const r of records) if (r.key.startsWith(`${uuid}|`)) last.set(r.key, r.value);
        expect(
          [...last].filter(([, value]) => value !== null).map(([key]) => key),
          `round ${round}`,
        ).toEqual([]);
      }
    } finally {
      await admin.disconnect();
    }
  }, 300_000);
});
