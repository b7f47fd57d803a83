import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafka } from '../../shared/kafka/index.js';
import { startGateway, type RunningGateway } from '../../test/helpers/gateway.js';
import { createUsersTable } from '../../shared/tables/index.js';
import { createRateLimits } from './rate-limits.js';
import { readTopic, topicSize } from '../../test/helpers/read-topic.js';
import { createTestEnv, waitFor, type TestEnv } from '../../test/helpers/test-env.js';

let env: TestEnv;
let gw: RunningGateway;

beforeAll(async () => {
  env = await createTestEnv();
  gw = await startGateway(env);
});
afterAll(async () => {
  await gw.close();
  await env.dispose();
});

function location(writeTs: number, extra: Record<string, unknown> = {}) {
  return {
    metadata: {
      key: 'background/location',
      platform: 'android',
      type: 'sensor-data',
      write_ts: writeTs,
      time_zone: 'America/Denver',
      read_ts: 0,
    },
    data: { latitude: 39.59, longitude: -104.98, accuracy: 20, bearing: 98, ts: writeTs - 1, filter: 'time', ...extra },
  };
}

async function registered(token: string): Promise<string> {
  const res = await gw.post('/profile/create', { user: token });
  expect(res.status).toBe(200);
  return res.body.uuid as string;
}

describe('profile and auth', () => {
  it('When the same token registers twice, then both answers carry the same uuid', async () => {
    const first = await registered('alice@example.org');
    const second = await registered('alice@example.org');
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(second).toBe(first);
  });

  it('When a token is shaped like a uuid, then registering it is a 400: such tokens belong to imported accounts', async () => {
    for (const token of ['0f8fad5b-d9cb-469f-a165-70867728950e', '0F8FAD5BD9CB469FA16570867728950E']) {
      const res = await gw.post('/profile/create', { user: token });
      expect(res.status, token).toBe(400);
      expect(res.body.error.field, token).toBe('user');
    }
    expect(await registered('0f8fad5b-d9cb-469f-a165-70867728950e@example.org')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('When one address registers past its allowance (through a proxy that forwards it), then 429 with Retry-After, and other addresses go on', async () => {
    const limited = await startGateway(env, {
      rateLimits: createRateLimits({
        'profile-create': { perAddress: 2, perToken: 10 },
        'profile-delete': { perAddress: 1, perToken: 5 },
        export: { perAddress: 10, perToken: 1 },
      }),
    });
    try {
      const from = (address: string) => ({ 'x-forwarded-for': address });
      expect((await limited.post('/profile/create', { user: 'r1@example.org' }, from('203.0.113.50'))).status).toBe(
        200,
      );
      expect((await limited.post('/profile/create', { user: 'r2@example.org' }, from('203.0.113.50'))).status).toBe(
        200,
      );
      const refused = await limited.post('/profile/create', { user: 'r3@example.org' }, from('203.0.113.50'));
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('RATE_LIMITED');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // Nothing was registered for the refused call.
      expect(await createUsersTable(env.cql).findByEmail('r3@example.org')).toBeUndefined();
      // A client cannot reset its count by naming another address before the proxy's: the last entry counts.
      const forged = await limited.post('/profile/create', { user: 'r3@example.org' }, from('10.9.9.9, 203.0.113.50'));
      expect(forged.status).toBe(429);
      expect((await limited.post('/profile/create', { user: 'r3@example.org' }, from('198.51.100.4'))).status).toBe(
        200,
      );

      // Deletion per address, export per token: the refused call changes nothing.
      expect((await limited.post('/profile/delete', { user: 'r1@example.org' }, from('203.0.113.70'))).status).toBe(
        200,
      );
      const secondDelete = await limited.post('/profile/delete', { user: 'r2@example.org' }, from('203.0.113.70'));
      expect([secondDelete.status, Number(secondDelete.headers.get('retry-after')) > 0]).toEqual([429, true]);
      expect(await createUsersTable(env.cql).findByEmail('r2@example.org')).toBeDefined();
      expect((await limited.post('/export/ndjson', { user: 'r2@example.org' }, from('203.0.113.80'))).status).toBe(200);
      const secondExport = await limited.post('/export/ndjson', { user: 'r2@example.org' }, from('198.51.100.81'));
      expect([secondExport.status, secondExport.body.error.code]).toEqual([429, 'RATE_LIMITED']);
    } finally {
      await limited.close();
    }
  });

  it('When a call has no user token, then it answers 401 with a JSON error', async () => {
    const res = await gw.post('/usercache/get', {});
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('AUTH_MISSING');
  });

  it('When a token was never registered, then calls other than /profile/create answer 403', async () => {
    const res = await gw.post('/usercache/get', { user: 'nobody@example.org' });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/no account found/);
  });

  it('When a profile is updated, then /profile/get returns the fields and the user id as $uuid', async () => {
    const uuid = await registered('bob@example.org');
    expect(
      (await gw.post('/profile/update', { user: 'bob@example.org', update_doc: { curr_platform: 'ios' } })).body,
    ).toEqual({ update: true });
    const profile = (await gw.post('/profile/get', { user: 'bob@example.org' })).body;
    expect(profile.curr_platform).toBe('ios');
    expect(profile.user_id).toEqual({ $uuid: uuid.replace(/-/g, '') });
  });
});

describe('/usercache/put', () => {
  it('When a batch is put, then every entry is in the usercache topic, keyed by the user, before the 200', async () => {
    const uuid = await registered('carol@example.org');
    const before = await topicSize(env, 'usercache');
    const entries = [location(1617919770.084), location(1617919800.5), location(1617919830.25)];
    const res = await gw.post('/usercache/put', {
      user: 'carol@example.org',
      phone_to_server: entries,
      app_version: '1.9.3',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(await topicSize(env, 'usercache')).toBe(before + 3);
    const records = await readTopic<{ user_id: string; write_ts: number }>(env, 'usercache', before + 3);
    const mine = records.filter((r) => r.key === uuid);
    expect(mine.map((r) => r.value.write_ts)).toEqual([1617919770.084, 1617919800.5, 1617919830.25]);
  });

  it('When timestamps are in milliseconds, then they are published in seconds', async () => {
    const uuid = await registered('dave@example.org');
    const before = await topicSize(env, 'usercache');
    const res = await gw.post('/usercache/put', {
      user: 'dave@example.org',
      phone_to_server: [location(1617919770084)],
    });
    expect(res.status).toBe(200);
    const mine = (await readTopic<{ write_ts: number; data_json: string }>(env, 'usercache', before + 1)).filter(
      (r) => r.key === uuid,
    );
    expect(mine[0]?.value.write_ts).toBeCloseTo(1617919770.084, 6);
    expect(JSON.parse(mine[0]?.value.data_json ?? '{}').ts).toBeCloseTo(1617919770.083, 6);
  });

  it.each([
    [[location(1), { metadata: { key: 'background/location' }, data: {} }], /phone_to_server\[1\]\.metadata\.write_ts/],
    [[{ metadata: { key: 7, write_ts: 1 }, data: {} }], /phone_to_server\[0\]\.metadata\.key/],
    [[{ metadata: { key: 'k', write_ts: 1 }, data: [] }], /phone_to_server\[0\]\.data must be an object/],
    ['not a list', /phone_to_server must be a list/],
  ])(
    'When an envelope is malformed (%#), then the whole put answers 400 naming it and nothing is published',
    async (list, message) => {
      await registered('erin@example.org');
      const before = await topicSize(env, 'usercache');
      const res = await gw.post('/usercache/put', { user: 'erin@example.org', phone_to_server: list });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(message);
      expect(await topicSize(env, 'usercache')).toBe(before);
    },
  );

  it('When /usercache/putone is called, then it answers {"putone": true}', async () => {
    await registered('frank@example.org');
    const res = await gw.post('/usercache/putone', { user: 'frank@example.org', the_entry: location(1617919999) });
    expect(res.body).toEqual({ putone: true });
  });

  it('When the broker does not answer, then the put gets 503 with Retry-After, never a 200', async () => {
    await registered('gina@example.org');
    const deadKafka = createKafka({
      brokers: ['127.0.0.1:1'],
      clientId: 'dead',
      logger: env.logger,
      retry: { retries: 1, maxRetryTime: 200 },
    });
    // The publisher's producer is made from the configuration, the readiness probes' client is handed over.
    const deadConfig = { ...env.config, kafka: { ...env.config.kafka, brokers: ['127.0.0.1:1'] } };
    const down = await startGateway({ ...env, config: deadConfig }, { kafka: deadKafka });
    try {
      const res = await down.post('/usercache/put', {
        user: 'gina@example.org',
        phone_to_server: [location(1617919770)],
      });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('30');
      expect(res.body.error.code).toBe('DEPENDENCY_UNAVAILABLE');
    } finally {
      await down.close();
    }
  });
});

describe('logs', () => {
  it('When a put succeeds, then stdout has START and END lines and the web log has the mapping and one line per entry', async () => {
    const uuid = await registered('hana@example.org');
    await gw.post('/usercache/put', {
      user: 'hana@example.org',
      phone_to_server: [location(1617920000.5), location(1617920030.5)],
    });
    const out = gw.stdout();
    const start = out.filter((l) => /^START \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6} POST \/usercache\/put$/.test(l));
    const end = out.filter((l) => l.startsWith('END ') && l.includes(`POST /usercache/put ${uuid} `));
    expect(start.length).toBeGreaterThan(0);
    expect(end.at(-1)).toMatch(
      new RegExp(
        `^END \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\.\\d{6} POST /usercache/put ${uuid} \\d+(\\.\\d+)?(e-\\d+)?$`,
      ),
    );
    const created = out.filter((l) => /^END .* POST \/profile\/create  [\d.e-]+$/.test(l));
    expect(created.length).toBeGreaterThan(0);

    // winston's file transport writes asynchronously: wait for the END line, the last one of the call.
    const log = await waitFor(
      async () => {
        const lines = gw.webLog();
        return lines.some((l) => l.includes(`:END POST /usercache/put ${uuid} `)) ? lines : undefined;
      },
      10_000,
      'the web log',
    );
    const linePattern = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3}:(DEBUG|INFO|WARNING|WARN|ERROR):\d+:.+$/;
    expect(log.every((l) => linePattern.test(l))).toBe(true);
    const mine = log.filter((l) => l.includes(uuid));
    // The token is logged as a digest even in development mode, where it is an e-mail.
    const digest = createHash('sha256').update('hana@example.org').digest('hex').slice(0, 12);
    const mapping = mine.findIndex((l) => l.includes(`user_email = sha256:${digest} -> uuid = ${uuid}`));
    expect(log.join('\n')).not.toContain('hana@example.org');
    const updates = mine.filter((l) =>
      l.includes(`Updated result for user = ${uuid}, key = background/location, write_ts = 16179200`),
    );
    expect(mapping).toBeGreaterThanOrEqual(0);
    expect(updates).toHaveLength(2);
    expect(updates[0]).toMatch(/"updatedExisting":false/);
    expect(mine.some((l) => l.includes(`:END POST /usercache/put ${uuid} `))).toBe(true);
  });
});

describe('HTTP edges', () => {
  it('When the path has doubled slashes or a prefix, then it still reaches the endpoint', async () => {
    await registered('ivan@example.org');
    expect((await gw.post('//usercache/get', { user: 'ivan@example.org' })).body).toEqual({ server_to_phone: [] });
    expect((await gw.post('/api//usercache/get', { user: 'ivan@example.org' })).body).toEqual({ server_to_phone: [] });
  });

  it('When the path is unknown, then it answers 404 JSON', async () => {
    const res = await gw.post('/no/such/thing', {});
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });

  it('When the body is not JSON, then 400; when its type is not JSON, then 415', async () => {
    expect((await gw.post('/usercache/get', '{"user": ')).status).toBe(400);
    const res = await gw.post('/usercache/get', 'user=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(415);
  });

  it('When the body exceeds the limit, then 413', async () => {
    const res = await gw.post('/usercache/put', { user: 'x', pad: 'y'.repeat(env.config.webserver.bodyLimitBytes) });
    expect(res.status).toBe(413);
  });

  it('When server code throws, then 500 JSON and the stack on standard output', async () => {
    const broken = await startGateway(env, {
      users: {
        register: async () => {
          throw new TypeError('boom in register');
        },
        findByEmail: async () => undefined,
        registerAs: async () => {
          throw new TypeError('boom in register');
        },
        findByUuid: async () => undefined,
        remove: async () => undefined,
      },
    });
    try {
      const res = await broken.post('/profile/create', { user: 'x' });
      expect(res.status).toBe(500);
      expect(res.body.error.request_id).toMatch(/[0-9a-f-]{36}/);
      expect(broken.stdout().some((l) => l.includes('TypeError: boom in register'))).toBe(true);
    } finally {
      await broken.close();
    }
  });

  it('When readiness is asked, then all three servers report ready', async () => {
    const res = await fetch(`${gw.url}/ready`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      ready: true,
      servers: { kafka: 'ready', cassandra: 'ready', schema_registry: 'ready' },
    });
  });
});
