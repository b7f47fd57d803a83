import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createErrorTimeseries, createTimeseriesReader } from '../../shared/timeseries/index.js';
import { acceptPutEntries, PutRejection } from '../../services/gateway/domain/put-entries.js';
import type { RunningConverter } from '../../services/converter/run-converter.js';
import { startGateway, type RunningGateway } from '../helpers/gateway.js';
import { startConverter } from '../helpers/pipeline.js';
import { topicSize } from '../helpers/read-topic.js';
import { createTestEnv, waitFor, type TestEnv } from '../helpers/test-env.js';

/**
 * The whole API under hostile and broken clients: whatever arrives, the gateway answers, never with a 5xx; a
 * refusal is a JSON error that says what is wrong; a refused put publishes nothing; an accepted entry, however
 * odd its payload, ends in the timeseries or the error timeseries, once.
 */

let env: TestEnv;
let gw: RunningGateway;
let converter: RunningConverter;
const uuids = new Map<string, string>();

beforeAll(async () => {
  env = await createTestEnv();
  gw = await startGateway(env);
  converter = await startConverter(env);
  for (const token of ['alice@example.org', 'bob@example.org']) {
    uuids.set(token, (await gw.post('/profile/create', { user: token })).body.uuid as string);
  }
});
afterAll(async () => {
  await converter?.stop();
  await gw?.close();
  await env?.dispose();
});

const PATHS = [
  '/profile/create',
  '/profile/get',
  '/profile/update',
  '/usercache/put',
  '/usercache/putone',
  '/usercache/get',
  '/timeline/getTrips/2016-06-15',
  '/timeline/getTrips/2016-13-45',
  '/timeline/getTrips/yesterday',
  '/pipeline/get_complete_ts',
  '/pipeline/get_range_ts',
  '/datastreams/find_entries/timestamp',
  '/datastreams/find_entries/local_date',
  '/result/metrics/timestamp',
  '/result/metrics/local_date',
  '/result/metrics/yyyy_mm_dd',
  '//usercache//put',
  '/usercache/put/../get',
  '/no/such/endpoint',
];

const hostileStrings = fc.constantFrom(
  "'; DROP TABLE users; --",
  '" OR 1=1 --',
  '{"$gt": ""}',
  '../../etc/passwd',
  '\u0000',
  '\ud800',
  'ユーザー@例え.jp',
  '😀'.repeat(50),
  '<script>alert(1)</script>',
  'a'.repeat(600),
  '',
  ' ',
);

const token = fc.oneof(
  fc.constantFrom('alice@example.org', 'bob@example.org', 'nobody@example.org'),
  hostileStrings,
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.object({ maxDepth: 1 }),
);

const oddNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -1, -1e300, 1e300, 1e11, 1440688707, 1440688707867, 1e16, Number.MAX_SAFE_INTEGER, 5e-324),
);

const oddValue = fc.oneof(oddNumber, hostileStrings, fc.boolean(), fc.constant(null), fc.constant([]));

/** Entries whose envelope is often valid and whose payload is anything: what reaches the converter. */
const entry = fc.oneof(
  fc.record({
    metadata: fc.record(
      {
        key: fc.oneof(
          fc.constantFrom(
            'background/location',
            'background/motion_activity',
            'statemachine/transition',
            'background/battery',
            'config/consent',
            'manual/mode_confirm',
          ),
          hostileStrings,
          oddValue,
        ),
        write_ts: fc.oneof(oddNumber, oddValue),
        type: fc.oneof(fc.constantFrom('sensor-data', 'message', 'rw-document', 'document'), oddValue),
        platform: fc.oneof(fc.constantFrom('android', 'ios'), oddValue),
        time_zone: fc.oneof(fc.constantFrom('America/Denver', 'Europe/Paris'), hostileStrings),
      },
      { requiredKeys: ['key', 'write_ts'] },
    ),
    data: fc.oneof(
      fc.dictionary(
        fc.constantFrom('ts', 'latitude', 'longitude', 'accuracy', 'agb', 'agc', 'transition', 'battery_level_pct'),
        oddValue,
      ),
      oddValue,
    ),
  }),
  oddValue,
  fc.anything({ maxDepth: 2 }),
);

/** Entries with a valid envelope and any payload at all: the gateway must take them, the converter judge them. */
const wellFormedEntry = fc.record({
  metadata: fc.record({
    key: fc.constantFrom(
      'background/location',
      'background/filtered_location',
      'background/motion_activity',
      'statemachine/transition',
      'background/battery',
      'config/consent',
      'manual/mode_confirm',
      'stats/client_error',
    ),
    // Seconds and milliseconds, including far past and far future the phone clock may report.
    write_ts: fc.oneof(
      fc.double({ min: 1, max: 9.9e9, noNaN: true }),
      fc.integer({ min: 1_000_000_000_000, max: 2_000_000_000_000 }),
    ),
    type: fc.constantFrom('sensor-data', 'message', 'rw-document'),
    platform: fc.oneof(fc.constantFrom('android', 'ios'), oddValue),
    time_zone: fc.oneof(fc.constantFrom('America/Denver', 'Europe/Paris', 'Asia/Kolkata'), hostileStrings),
  }),
  data: fc.dictionary(
    fc.constantFrom(
      'ts',
      'latitude',
      'longitude',
      'accuracy',
      'agb',
      'agc',
      'transition',
      'currState',
      'battery_level_pct',
      'label',
    ),
    fc.oneof(oddValue, fc.string({ unit: 'binary', maxLength: 20 }), fc.object({ maxDepth: 1 })),
  ),
});

const jsonBody = fc.record(
  {
    user: token,
    phone_to_server: fc.oneof(fc.array(entry, { maxLength: 6 }), oddValue),
    the_entry: entry,
    key_list: fc.oneof(fc.array(fc.oneof(hostileStrings, fc.constant('background/location'))), oddValue),
    start_time: oddValue,
    end_time: oddValue,
    max_entries: oddValue,
    trunc_method: fc.oneof(fc.constantFrom('first', 'last', 'sample'), oddValue),
    freq: fc.oneof(fc.constantFrom('D', 'M', 'DAILY', 'YEARLY'), oddValue),
    metric_list: fc.oneof(fc.array(fc.constantFrom('count', 'distance', 'duration', 'nonsense')), oddValue),
    update_doc: fc.oneof(fc.object({ maxDepth: 1 }), oddValue),
  },
  { requiredKeys: [] },
);

/** A request as sent on the wire: a body text, and a content type that is sometimes wrong. */
const request = fc.record({
  path: fc.constantFrom(...PATHS),
  body: fc.oneof(
    jsonBody.map((b) => JSON.stringify(b)),
    fc.string({ unit: 'binary', maxLength: 80 }),
    fc.constantFrom(
      '{"user": "alice@example.org", "phone_to_server": [{"metadata": {"key": "k", "write_ts": NaN}, "data": {}}]}',
      '{"user": "alice@example.org", "phone_to_server": [',
      '[{"user": "alice@example.org"}]',
      'null',
      '"just a string"',
      '{"user": "alice@example.org", "user": "bob@example.org"}',
      '{"user": "alice@example.org", "__proto__": {"admin": true}}',
    ),
  ),
  contentType: fc.constantFrom(
    'application/json; charset=UTF-8',
    'application/json',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
  ),
});

/** The identity under which an accepted entry is stored: (user, type, key, write_ts in seconds). */
function identities(user: string, list: unknown): string[] {
  const accepted = acceptPutEntries(list, 50_000);
  if (accepted instanceof PutRejection) return [];
  return accepted.map((e) => `${user}|${e.type}|${e.key}|${e.writeTs}`);
}

describe('bad input over the whole API', () => {
  it('When hundreds of malformed, mistyped, hostile and odd requests arrive, then none gets a 5xx, every refusal names its problem, refused puts publish nothing, and every accepted entry ends in the timeseries or the error timeseries exactly once', async () => {
    let published = 0;
    const stored = new Set<string>();
    const statuses = new Map<number, number>();

    await fc.assert(
      fc.asyncProperty(request, async ({ path, body, contentType }) => {
        const before = await topicSize(env, 'usercache');
        const res = await gw.post(path, body, { 'content-type': contentType });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        expect(res.status, `${path} ${body.slice(0, 200)}`).toBeLessThan(500);
        expect(typeof res.body, 'every answer is JSON').toBe('object');
        if (res.status >= 400) {
          expect(typeof res.body.error?.message).toBe('string');
          expect(res.body.error.message.length).toBeGreaterThan(5);
        }
        const after = await topicSize(env, 'usercache');
        const isPut = /^\/+usercache\/+put(one)?$/.test(path);
        if (res.status !== 200 || !isPut) {
          expect(after, 'nothing published by a refused or read-only call').toBe(before);
          return;
        }
        // An accepted put published exactly its entries, all of them.
        const parsed = JSON.parse(body) as Record<string, unknown>;
        const list = path.endsWith('putone') ? [parsed['the_entry']] : parsed['phone_to_server'];
        const user = uuids.get(parsed['user'] as string) as string;
        const ids = identities(user, list);
        expect(after - before).toBe(ids.length);
        published += ids.length;
        for (const id of ids) stored.add(id);
      }),
      { numRuns: 400 },
    );

    // Puts a phone could send: a good token and envelope, any payload; one bad envelope among them refuses all.
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('alice@example.org', 'bob@example.org'),
        fc.array(wellFormedEntry, { maxLength: 8 }),
        fc.option(fc.tuple(fc.nat(), entry), { freq: 4 }),
        async (user, good, intruder) => {
          const list: unknown[] = [...good];
          if (intruder) list.splice(intruder[0] % (list.length + 1), 0, intruder[1]);
          const before = await topicSize(env, 'usercache');
          const res = await gw.post('/usercache/put', { user, phone_to_server: list });
          const after = await topicSize(env, 'usercache');
          const ids = identities(uuids.get(user) as string, list);
          if (acceptPutEntries(list, 50_000) instanceof PutRejection) {
            expect(res.status).toBe(400);
            expect(res.body.error.message).toMatch(/phone_to_server\[\d+\]/);
            expect(after).toBe(before);
            return;
          }
          expect(res.status).toBe(200);
          expect(after - before).toBe(ids.length);
          published += ids.length;
          for (const id of ids) stored.add(id);
        },
      ),
      { numRuns: 150 },
    );

    // A batch sent twice, as a phone that lost the first answer does: both are taken, stored once.
    const twice = [
      {
        metadata: {
          key: 'background/battery',
          platform: 'android',
          type: 'sensor-data',
          write_ts: 1466000000,
          time_zone: 'America/Denver',
        },
        data: { battery_level_pct: 50, ts: 1466000000 },
      },
    ];
    for (let i = 0; i < 2; i += 1) {
      const res = await gw.post('/usercache/put', { user: 'alice@example.org', phone_to_server: twice });
      expect(res.status).toBe(200);
      published += 1;
    }
    stored.add(identities(uuids.get('alice@example.org') as string, twice)[0] as string);

    // Every entry answered 200 reaches the timeseries or the error timeseries, each identity once.
    const reader = createTimeseriesReader(env.cql);
    const errors = createErrorTimeseries(env.cql);
    const count = async () => {
      let n = 0;
      for (const uuid of uuids.values()) {
        n += Object.values(await reader.countByKey(uuid)).reduce((a, b) => a + b, 0);
      }
      for await (const _ of errors.all()) n += 1;
      return n;
    };
    await waitFor(async () => ((await count()) >= stored.size ? true : undefined), 60_000, 'the converter');
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await count()).toBe(stored.size);
    expect(published).toBeGreaterThanOrEqual(stored.size);
    // The run must have exercised both sides: refusals and acceptances.
    expect([...statuses.keys()].some((s) => s >= 400)).toBe(true);
    expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
  }, 300_000);

  it("When a user presents their own token, then find_entries, getTrips and usercache/get never return another user's data", async () => {
    const alice = uuids.get('alice@example.org') as string;
    const bob = uuids.get('bob@example.org') as string;
    const mine = {
      metadata: { key: 'background/battery', platform: 'ios', type: 'sensor-data', write_ts: 1466000100 },
      data: { battery_level_pct: 42, ts: 1466000100 },
    };
    mine.metadata = { ...mine.metadata, time_zone: 'America/Denver' } as typeof mine.metadata;
    expect((await gw.post('/usercache/put', { user: 'alice@example.org', phone_to_server: [mine] })).status).toBe(200);
    const read = (user: string) =>
      gw.post('/datastreams/find_entries/timestamp', {
        user,
        key_list: ['background/battery'],
        start_time: 1466000000,
        end_time: 1466000200,
      });
    await waitFor(async () => ((await read('alice@example.org')).body.phone_data.length > 0 ? true : undefined));
    const bobs = await read('bob@example.org');
    expect(bobs.status).toBe(200);
    expect(JSON.stringify(bobs.body)).not.toContain(alice.replace(/-/g, ''));
    expect(bobs.body.phone_data.every((e: any) => e.user_id.$uuid === bob.replace(/-/g, ''))).toBe(true);
    // A token naming a user in another field does not switch identity: only `user` counts.
    const spoof = await gw.post('/datastreams/find_entries/timestamp', {
      user: 'bob@example.org',
      user_id: alice,
      uuid: alice,
      key_list: ['background/battery'],
      start_time: 1466000000,
      end_time: 1466000200,
    });
    expect(JSON.stringify(spoof.body)).not.toContain(alice.replace(/-/g, ''));
  });

  it('When a body exceeds the limit, then 413 with a JSON error and nothing is published', async () => {
    const before = await topicSize(env, 'usercache');
    const huge = JSON.stringify({ user: 'alice@example.org', phone_to_server: [], pad: 'x'.repeat(70 * 1024 * 1024) });
    const res = await gw.post('/usercache/put', huge);
    expect(res.status).toBe(413);
    expect(res.body.error.message).toMatch(/limit/);
    expect(await topicSize(env, 'usercache')).toBe(before);
  });
});
