import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cql } from '../../shared/cassandra/index.js';
import { startGateway, type RunningGateway } from '../../test/helpers/gateway.js';
import { createUsersTable } from '../../shared/tables/users.js';
import { topicSize } from '../../test/helpers/read-topic.js';
import { createTestEnv, waitFor, type TestEnv } from '../../test/helpers/test-env.js';
import { rawExchange as rawExchangeWith } from '../../test/helpers/raw-http.js';

/**
 * The gateway's edge under clients that do not play by the rules: bodies too large, too many, too slow, too
 * deep, for paths that do not exist or with methods nobody serves. Each refusal is decided before the work it
 * would cost, answers the right status with a JSON error naming the problem, and publishes nothing.
 */

let env: TestEnv;
let gw: RunningGateway;

beforeAll(async () => {
  env = await createTestEnv({
    // Small bounds so the tests reach them quickly; production defaults are in conf/net/api/webserver.conf.
    WEBSERVER_BODY_BUDGET_MB: '4',
    WEBSERVER_BODY_IDLE_TIMEOUT_S: '2',
    WEBSERVER_BODY_MIN_RATE_BPS: '512',
  });
  gw = await startGateway(env);
  expect((await gw.post('/profile/create', { user: 'edge@example.org' })).status).toBe(200);
});
afterAll(async () => {
  await gw?.close();
  await env?.dispose();
});

/** One exchange over a bare socket with the gateway under test (test/helpers/raw-http.ts). */
const rawExchange = (head: string, send?: (socket: Socket) => Promise<void>) => rawExchangeWith(gw.url, head, send);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function entry(writeTs: number, data: unknown) {
  return { metadata: { key: 'background/location', type: 'sensor-data', write_ts: writeTs }, data };
}

describe('bodies', () => {
  it('When a call other than a put sends more than 1 MB, then it answers 413 naming the route', async () => {
    const res = await gw.post('/usercache/get', { user: 'edge@example.org', padding: 'x'.repeat(1_100_000) });
    expect(res.status).toBe(413);
    expect(res.body.error.message).toMatch(/\/usercache\/get/);
  });

  it('When a path does not exist and its body stops coming, then it answers 404 and closes the connection', async () => {
    const res = await rawExchange(
      'POST /no/such/endpoint HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50000000\r\n\r\n{"user":',
    );
    expect(res.status).toBe(404);
    expect(res.closedBy).toBe('server');
    expect(res.headers.toLowerCase()).toContain('connection: close');
  });

  it('When a path does not exist and the client sends its whole body, then the client reads the 404 (the body is drained)', async () => {
    // fetch reports a reset as a failed request: it sees the 404 only if the gateway read the body to its end.
    const res = await fetch(`${gw.url}/no/such/endpoint`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: 'edge@example.org', padding: 'x'.repeat(8 * 1024 * 1024) }),
    });
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('NOT_FOUND');
  });

  it('When a client stops sending its body, then it is cut off with 408 after the idle timeout', async () => {
    const res = await rawExchange(
      'POST /usercache/put HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"user"',
    );
    expect(res.status).toBe(408);
    expect(res.body).toMatch(/BODY_TIMEOUT/);
    expect(res.closedBy).toBe('server');
  });

  it('When a client trickles its body at 2 bytes/s, then it is cut off with 408 even though bytes keep coming', async () => {
    let open = true;
    const res = await rawExchange(
      'POST /usercache/put HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n',
      async (socket) => {
        while (open && !socket.destroyed) {
          socket.write('  ');
          await sleep(1000);
        }
      },
    );
    open = false;
    expect(res.status).toBe(408);
    expect(res.body).toMatch(/BODY_TIMEOUT/);
  });

  it('When the bodies in flight would pass the gateway budget, then the next request is 503 with Retry-After, unread', async () => {
    // Puts get three quarters of the 4 MiB budget: a put that has sent 2.6 MB and then stalls holds most of it.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const holder = rawExchange(
      'POST /usercache/put HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 3000000\r\n\r\n',
      async (socket) => {
        socket.write(`{"user": "edge@example.org", "pad": "${'p'.repeat(2_600_000)}`);
        await released;
      },
    );
    await waitFor(async () => ((await bodyBytesHeld('puts')) >= 2_600_000 ? true : undefined), 30_000, 'the holder');
    const before = await topicSize(env, 'usercache');
    const res = await gw.post('/usercache/put', {
      user: 'edge@example.org',
      phone_to_server: [entry(1700000000, { latitude: 1, longitude: 2, ts: 1700000000, pad: 'p'.repeat(700_000) })],
    });
    // The other calls keep their own quarter: a phone can still read while puts fill theirs.
    const read = await gw.post('/pipeline/get_complete_ts', { user: 'edge@example.org' });
    release();
    await holder;
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('10');
    expect(res.body.error.code).toBe('OVERLOADED');
    expect(read.status).toBe(200);
    expect(await topicSize(env, 'usercache')).toBe(before);
    // Once the holder is gone, the same put goes through.
    const again = await gw.post('/usercache/put', {
      user: 'edge@example.org',
      phone_to_server: [entry(1700000000, { latitude: 1, longitude: 2, ts: 1700000000 })],
    });
    expect(again.status).toBe(200);
  });

  it('When clients declare large bodies and send nothing, then they hold no budget and phones still get through', async () => {
    const idle = Array.from({ length: 4 }, () =>
      rawExchange(
        'POST /usercache/put HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1500000\r\n\r\n',
      ),
    );
    await sleep(200);
    const res = await gw.post('/usercache/put', {
      user: 'edge@example.org',
      phone_to_server: [entry(1700000030, { latitude: 1, longitude: 2, ts: 1700000030 })],
    });
    expect(res.status).toBe(200);
    await Promise.all(idle);
  });
});

/** What the gateway's /metrics says it holds of a body budget. */
async function bodyBytesHeld(budget: 'puts' | 'calls'): Promise<number> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`itinera_gateway_body_bytes_held{budget="${budget}"}`));
  return Number(line?.split(' ')[1] ?? 0);
}

describe('JSON nesting', () => {
  it('When an entry nests deeper than 64 levels, then the put is a 400 naming the field, and nothing is published', async () => {
    // Built as text: 5,000 levels are past what JSON.stringify itself can recurse through.
    const deep = '{"a":'.repeat(5000) + '{}' + '}'.repeat(5000);
    const entries = [entry(1700000001, { ts: 1700000001 }), entry(1700000002, { ts: 1700000002, deep: '@' })];
    const body = JSON.stringify({ user: 'edge@example.org', phone_to_server: entries }).replace('"@"', deep);
    const before = await topicSize(env, 'usercache');
    const res = await gw.post('/usercache/put', body);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/deeper than 64 levels at phone_to_server\[1\]\.data\.deep\.a/);
    expect(res.body.error.field).toMatch(/^phone_to_server\[1\]/);
    expect(await topicSize(env, 'usercache')).toBe(before);
  });
});

describe('entry size and Kafka refusals', () => {
  it('When one entry is larger than the pipeline can carry, then the put is a 413 naming it, and nothing is published', async () => {
    const before = await topicSize(env, 'usercache');
    const res = await gw.post('/usercache/put', {
      user: 'edge@example.org',
      phone_to_server: [
        entry(1700000010, { ts: 1700000010 }),
        entry(1700000011, { ts: 1700000011 }),
        entry(1700000012, { ts: 1700000012, blob: 'b'.repeat(1_700_000) }),
      ],
    });
    expect(res.status).toBe(413);
    expect(res.body.error.message).toMatch(/phone_to_server\[2\] is \d+ bytes/);
    expect(res.body.error.entry_index).toBe(2);
    expect(await topicSize(env, 'usercache')).toBe(before);
  });

  it('When Kafka refuses a put as too large, then the answer is 413, not a 503 the phone would retry for ever', async () => {
    const admin = env.kafka.admin();
    await admin.connect();
    const topic = `${env.config.kafka.topicPrefix}usercache`;
    // The broker applies a topic's new configuration after the controller accepts it: wait until it reports it, or
    // a put sent at once may still be taken under the old limit.
    const setLimit = async (bytes: string) => {
      await admin.alterConfigs({
        validateOnly: false,
        resources: [{ type: 2 /* TOPIC */, name: topic, configEntries: [{ name: 'max.message.bytes', value: bytes }] }],
      });
      const deadline = Date.now() + 30_000;
      for (;;) {
        const { resources } = await admin.describeConfigs({
          includeSynonyms: false,
          resources: [{ type: 2 /* TOPIC */, name: topic, configNames: ['max.message.bytes'] }],
        });
        if (resources[0]?.configEntries[0]?.configValue === bytes) return;
        if (Date.now() > deadline) throw new Error(`the broker never reported max.message.bytes=${bytes}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await setLimit('2000');
    try {
      const res = await gw.post('/usercache/put', {
        user: 'edge@example.org',
        phone_to_server: [entry(1700000020, { ts: 1700000020, note: 'n'.repeat(20_000) })],
      });
      expect(res.status).toBe(413);
      expect(res.body.error.message).toMatch(/Kafka refused/);
    } finally {
      await setLimit('4194304');
      await admin.disconnect();
    }
  });
});

describe('methods', () => {
  it.each(['TRACE', 'PROPFIND', 'MKCOL', 'LOCK', 'SEARCH', 'GET', 'DELETE', 'HEAD'])(
    'When %s is sent to a known path, then it answers 405 with an Allow header, and the error as JSON unless to a HEAD',
    async (method) => {
      const res = await rawExchange(`${method} /usercache/put HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(res.status).toBe(405);
      expect(res.headers).toMatch(/\r\nallow: POST/i);
      // An answer to HEAD has no body (RFC 9110 §9.3.2): the error would be read as the start of the next answer.
      if (method === 'HEAD') expect(res.body).toBe('');
      else
        expect(JSON.parse(res.body.split('\r\n').find((l) => l.startsWith('{')) ?? res.body).error.code).toBe(
          'METHOD_NOT_ALLOWED',
        );
    },
  );

  it('When POST is sent to a monitoring path, then it answers 405 naming GET', async () => {
    const res = await gw.post('/health', {});
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toMatch(/GET/);
  });
});

describe('tokens, types and logs', () => {
  it.each(['bell\u0007', 'nul\u0000x', 'bidi\u202eevil', 'lone\ud800'])(
    'When a token holds a control or non-printable character (%j), then it is a 400',
    async (token) => {
      const res = await gw.post('/profile/create', { user: token });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/non-printable/);
    },
  );

  it('When metadata.type is not one of the phone types, then the put is a 400 naming the entry', async () => {
    const bad = entry(1700000003, { ts: 1700000003 });
    (bad.metadata as Record<string, unknown>)['type'] = 'constructor';
    const res = await gw.post('/usercache/put', { user: 'edge@example.org', phone_to_server: [bad] });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/phone_to_server\[0\]\.metadata\.type must be one of message/);
  });

  it('When a token carries a line or paragraph separator, then it is refused with 400 and the web log holds no forged line', async () => {
    for (const separator of ['\u2028', '\u2029']) {
      const res = await gw.post('/profile/create', { user: `eve${separator}FORGED:INFO:1:retUUID = admin` });
      expect(res.status).toBe(400);
      expect(res.body.error.field).toBe('user');
    }
    const lines = await waitFor(async () => {
      const all = gw.webLog();
      return all.filter((l) => l.includes('END POST /profile/create')).length >= 2 ? all : undefined;
    });
    expect(lines.every((l) => /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}:/.test(l))).toBe(true);
    expect(lines.join('\n')).not.toContain('FORGED');
  });
});

describe('credentials', () => {
  it('When the gateway runs in secret mode, then the web log never shows any part of the shared secret, only a short hash', async () => {
    const secret = 'Zq8shared-secret-of-the-study';
    const secretGw = await startGateway(env, {
      config: { ...env.config, webserver: { ...env.config.webserver, auth: 'secret', secretPrefixes: [secret] } },
    });
    try {
      const token = `${secret}_participant_0042`;
      expect((await secretGw.post('/profile/create', { user: token })).status).toBe(200);
      expect((await secretGw.post('/usercache/get', { user: 'Zq8shared-wrong_participant' })).status).toBe(403);
      const put = await secretGw.post('/usercache/put', {
        user: token,
        phone_to_server: [entry(1700000100, { ts: 1 })],
      });
      expect(put.status).toBe(200);
      const lines = await waitFor(async () => {
        const all = secretGw.webLog();
        return all.some((l) => l.includes('retUUID')) && all.some((l) => l.includes('-> uuid')) ? all : undefined;
      });
      expect(lines.join('\n')).not.toContain(secret.slice(0, 4));
      expect(lines.some((l) => /user_email = sha256:[0-9a-f]{12}/.test(l))).toBe(true);
    } finally {
      await secretGw.close();
    }
  });

  it('When the gateway runs in token-list mode, then listed tokens pass and others, however close, are refused', async () => {
    const listGw = await startGateway(env, {
      config: {
        ...env.config,
        webserver: { ...env.config.webserver, auth: 'token_list', tokenList: ['tok-aaaa', 'tok-bbbb'] },
      },
    });
    try {
      expect((await listGw.post('/profile/create', { user: 'tok-bbbb' })).status).toBe(200);
      for (const near of ['tok-bbb', 'tok-bbbbb', 'TOK-BBBB', 'tok-bbbb ']) {
        expect((await listGw.post('/profile/create', { user: near })).status).toBe(403);
      }
    } finally {
      await listGw.close();
    }
  });

  it('When more users call than the user cache holds, then the least recent are read again and every one is recognised', async () => {
    let reads = 0;
    const counted = { ...env.cql, read: (...args: Parameters<Cql['read']>) => ((reads += 1), env.cql.read(...args)) };
    const users = createUsersTable(counted as Cql, { cacheEntries: 2 });
    const tokens = Array.from({ length: 6 }, (_, i) => `lru-${i}@example.org`);
    const registered = [];
    for (const token of tokens) registered.push((await users.register(token)).user.uuid);
    reads = 0;
    // Newest first: the last two registered are still cached; the four others were evicted and are read again.
    for (let i = tokens.length - 1; i >= 0; i -= 1)
      expect((await users.findByEmail(tokens[i]!))?.uuid).toBe(registered[i]);
    expect(reads).toBe(4);
  });
});

describe('monitoring', () => {
  it('When unknown paths are called, then /metrics labels them "unmatched", never by their raw path', async () => {
    await gw.post('/random-path-7f3a9c', {});
    await gw.post('/timeline/getTrips/2016-06-15', { user: 'edge@example.org' });
    const text = await (await fetch(`${gw.url}/metrics`)).text();
    expect(text).not.toContain('random-path-7f3a9c');
    expect(text).toMatch(/itinera_gateway_call_seconds_count\{path="unmatched",status="404"\}/);
    expect(text).toMatch(/path="\/timeline\/getTrips\/:day"/);
  });
});
