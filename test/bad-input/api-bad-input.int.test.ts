import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptPutEntries, PutRejection } from '../../shared/events/index.js';
import type { RunningGateway } from '../helpers/gateway.js';
import { topicSize } from '../helpers/read-topic.js';
import { waitFor, type TestEnv } from '../helpers/test-env.js';
import { entry, request, wellFormedEntry } from './arbitraries.js';
import { startBadInputStack, type BadInputStack } from './bad-input-stack.js';
import { createProgramManager } from '../../shared/programs/manage-programs.js';
import { createProgramConfigsTable } from '../../shared/tables/index.js';

/**
 * The whole API under hostile and broken clients: whatever arrives, the gateway answers, never with a 5xx; a
 * refusal is a JSON error that says what is wrong; a refused put publishes nothing; an accepted entry, however
 * odd its payload, ends in the timeseries or the error timeseries, once.
 */

let stack: BadInputStack;
let env: TestEnv;
let gw: RunningGateway;
let uuids: ReadonlyMap<string, string>;
const identities = (user: string, list: unknown) => stack.identities(user, list);

beforeAll(async () => {
  // Gateways read programs again every 200 ms: the programs saved below reach the gateway within a few calls.
  stack = await startBadInputStack({ WEBSERVER_PROGRAM_REFRESH_S: '0.2' });
  ({ env, gw, uuids } = stack);
});
afterAll(async () => {
  await stack?.stop();
});

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
    expect(await stack.settledCount(stored.size)).toBe(stored.size);
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
    // Refused from its declared length before a byte is read; the gateway drains the body so that fetch, still
    // uploading, reads the 413 instead of a reset.
    const res = await gw.post('/usercache/put', huge);
    expect(res.status).toBe(413);
    expect(res.body.error.message).toMatch(/limit/);
    expect(await topicSize(env, 'usercache')).toBe(before);
  });
});

describe('tokens against the programs a deployment serves', () => {
  beforeAll(async () => {
    const programs = createProgramManager(createProgramConfigsTable(env.cql));
    const by = 'operator@itinera.test';
    const ebike = {
      version: 1,
      opcode: { autogen: true, subgroups: ['regular', 'paused'], suspended_subgroups: ['paused'] },
    };
    await programs.create({ program: 'ebike', document: JSON.stringify(ebike), by });
    await programs.create({
      program: 'staff',
      document: JSON.stringify({ version: 1, opcode: { autogen: true, subgroups: ['office'] } }),
      by,
    });
    await waitFor(async () =>
      (await gw.post('/profile/create', { user: 'nrelop_nowhere_default_probe' })).status === 403 ? true : undefined,
    );
  });

  it("When tokens name unknown programs, other programs' subgroups, suspended subgroups or testers, then each gets the answer its program gives, and nothing a refusal or a suspension touches is stored", async () => {
    const cases: [token: string, create: number, stored: boolean][] = [
      ['nrelop_ebike_regular_a1b2c3', 200, true],
      ['nrelop_ebike_regular_test_a1b2c3', 200, true],
      ['nrelop_ebike_paused_a1b2c3', 200, false],
      ['nrelop_ebike_office_a1b2c3', 403, false],
      ['nrelop_staff_regular_a1b2c3', 403, false],
      ['nrelop_ebike_default_a1b2c3', 403, false],
      ['nrelop_ebike_regular', 403, false],
      ['nrelop_EBIKE_regular_a1b2c3', 403, false],
      ['nrelop_nowhere_default_a1b2c3', 403, false],
      ['nrelop__regular_a1b2c3', 403, false],
      ['nrelop_ebike__a1b2c3', 403, false],
    ];
    const battery = (ts: number) => ({
      metadata: { key: 'background/battery', platform: 'ios', type: 'sensor-data', write_ts: ts, time_zone: 'UTC' },
      data: { battery_level_pct: 42, ts },
    });
    for (const [token, create, stored] of cases) {
      const created = await gw.post('/profile/create', { user: token });
      expect(created.status, token).toBe(create);
      if (create !== 200) expect(created.body.error.code, token).toBe('AUTH_FORBIDDEN');
      const before = await topicSize(env, 'usercache');
      const put = await gw.post('/usercache/put', { user: token, phone_to_server: [battery(1466000300)] });
      expect(put.status, token).toBe(create);
      expect(await topicSize(env, 'usercache'), token).toBe(before + (stored ? 1 : 0));
    }

    // Any opcode-shaped token: never a 5xx; a refusal stores nothing; only a served subgroup that is not suspended
    // stores what it puts.
    const part = fc.constantFrom('ebike', 'staff', 'regular', 'paused', 'office', 'default', 'test', '', 'x', 'ébike');
    await fc.assert(
      fc.asyncProperty(fc.array(part, { minLength: 1, maxLength: 5 }), async (parts) => {
        const token = `nrelop_${parts.join('_')}`;
        const before = await topicSize(env, 'usercache');
        const created = await gw.post('/profile/create', { user: token });
        const put = await gw.post('/usercache/put', { user: token, phone_to_server: [battery(1466000400)] });
        expect([200, 403], token).toContain(created.status);
        expect(put.status, token).toBe(created.status);
        const [program, subgroup] = parts;
        const member =
          parts.length >= 3 &&
          ((program === 'ebike' && (subgroup === 'regular' || subgroup === 'paused')) ||
            (program === 'staff' && subgroup === 'office'));
        expect(created.status, token).toBe(member ? 200 : 403);
        const grew = (await topicSize(env, 'usercache')) - before;
        expect(grew, token).toBe(member && subgroup !== 'paused' ? 1 : 0);
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
