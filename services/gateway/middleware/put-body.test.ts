import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import Koa, { type ParameterizedContext } from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayState } from '../gateway-state.js';
import { BodyBudget } from './body-budget.js';
import { limitBody } from './body-limits.js';
import { errorHandler } from '../../../shared/http/index.js';
import { isPutRoute, SLOW_UPLOAD_MS } from './put-body.js';
import { putPath } from './put-path.js';

/** The put bodies' reading and parsing on a real socket: which bodies keep their entries as text, which are whole. */

/**
 * A gateway's put path on a real socket, one put processed at a time: body limits, then the app's own put path
 * (middleware/put-path.ts), then `handle`. Returns the put route's URL, the put body budget and a way to close it all.
 */
async function admittedPutApp(
  handle: (ctx: ParameterizedContext<GatewayState>) => Promise<void>,
  { idleTimeoutMs = 5000, minBytesPerSecond = 1, slowUploadMs = SLOW_UPLOAD_MS } = {},
) {
  const app = new Koa<GatewayState>();
  app.use(errorHandler({ stdout: new PassThrough() }));
  app.use(async (ctx, next) => {
    ctx.state.route = ctx.path;
    return next();
  });
  const budget = new BodyBudget(10_000_000);
  app.use(
    limitBody({
      boundsFor: () => ({ limitBytes: 1_000_000, budget }),
      scansDepth: (route) => !isPutRoute(route),
      idleTimeoutMs,
      minBytesPerSecond,
    }),
  );
  for (const step of putPath({ maxConcurrent: 1 }, { slowUploadMs })) app.use(step);
  app.use(handle);
  app.on('error', () => undefined);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return {
    url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/usercache/put`),
    budget,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

const userOf = (ctx: ParameterizedContext<GatewayState>) => (ctx.request.body as { user?: string }).user ?? '';

let url: URL;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ url, close } = await admittedPutApp(
    async (ctx) => {
      const texts = ctx.state.putEntries;
      ctx.body = {
        body: ctx.request.body,
        texts: texts ? Array.from({ length: texts.count }, (_, i) => texts.element(i)) : null,
      };
    },
    { idleTimeoutMs: 2000, minBytesPerSecond: 100 },
  ));
});

afterAll(() => close());

async function put(body: string, path = '/usercache/put') {
  const res = await fetch(new URL(path, url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

describe('put bodies', () => {
  it('When a put is laid out as phones send it, then its entries stay text and the body is parsed without them', async () => {
    const { status, json } = await put('{"user": "a", "phone_to_server": [{"metadata": {}, "data": {}}, 7]}');
    expect(status).toBe(200);
    expect(json).toEqual({ body: { user: 'a', phone_to_server: [] }, texts: ['{"metadata": {}, "data": {}}', '7'] });
  });

  it.each([
    ['an entry key written with escapes', '{"phone_to_server": [{"metadata": {"a": 1}, "metad\\u0061ta": {"b": 2}}]}'],
    ['the list key twice', '{"phone_to_server": [{"a": 1}], "phone_to_server": null}'],
    ['accented text', '{"phone_to_server": [{"label": "café"}]}'],
  ])('When a put has %s, then it is parsed whole, as JSON.parse reads it', async (_, text) => {
    const { status, json } = await put(text);
    expect(status).toBe(200);
    expect(json).toEqual({ body: JSON.parse(text), texts: null });
  });

  it('When a put nests too deep, then it is refused naming where, whichever way it would be parsed', async () => {
    const deep = '{"a":'.repeat(70) + '1' + '}'.repeat(70);
    for (const text of [`{"phone_to_server": [${deep}]}`, `{"phone_to_server": [], "x": ${deep}}`]) {
      const { status, json } = await put(text);
      expect(status).toBe(400);
      expect(JSON.stringify(json)).toMatch(/nests deeper than 64 levels/);
    }
  });
});

describe('a put waiting for admission', () => {
  it('When a put waits behind another, then its bytes stay on the socket and its pace is not clocked until it runs', async () => {
    const idleTimeoutMs = 200;
    let release = () => undefined as void;
    let held = () => undefined as void;
    const firstHeld = new Promise<void>((r) => (held = r));
    const {
      url: at,
      budget,
      close: closeApp,
    } = await admittedPutApp(
      async (ctx) => {
        if (userOf(ctx) === 'first') {
          held();
          await new Promise<void>((r) => (release = r));
        }
        ctx.body = { user: userOf(ctx), entries: ctx.state.putEntries?.count };
      },
      { idleTimeoutMs, minBytesPerSecond: 100 },
    );
    const send = (user: string, entries: number) =>
      fetch(at, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ user, phone_to_server: Array.from({ length: entries }, (_, i) => ({ data: { i } })) }),
      }).then(async (res) => ({ status: res.status, json: await res.json() }));
    try {
      const first = send('first', 1);
      await firstHeld;
      const heldByFirst = budget.heldBytes;
      const second = send('second', 20_000);
      // Longer than the idle timeout: a clock started on arrival would cut the waiting put off with a 408.
      await new Promise((r) => setTimeout(r, 3 * idleTimeoutMs));
      expect(budget.heldBytes).toBe(heldByFirst);
      release();
      expect(await first).toEqual({ status: 200, json: { user: 'first', entries: 1 } });
      expect(await second).toEqual({ status: 200, json: { user: 'second', entries: 20_000 } });
    } finally {
      release();
      await closeApp();
    }
  });
});

describe('a slow upload', () => {
  it('When an admitted upload trickles, then it steps aside and a put sent after it is answered first', async () => {
    const answered: string[] = [];
    const { url: at, close: closeApp } = await admittedPutApp(
      async (ctx) => {
        answered.push(userOf(ctx));
        ctx.body = { user: userOf(ctx) };
      },
      { slowUploadMs: 100 },
    );
    try {
      const body = '{"user": "slow", "phone_to_server": []}';
      const slow = request(at, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(body.length) },
      });
      const slowAnswer = new Promise<number>((resolve, reject) => {
        slow.on('response', (res) => (res.resume(), resolve(res.statusCode ?? 0)));
        slow.on('error', reject);
      });
      slow.write(body.slice(0, 10));
      await new Promise((r) => setTimeout(r, 300));
      const fast = await fetch(at, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"user": "fast", "phone_to_server": []}',
      });
      expect(fast.status).toBe(200);
      slow.end(body.slice(10));
      expect(await slowAnswer).toBe(200);
      expect(answered).toEqual(['fast', 'slow']);
    } finally {
      await closeApp();
    }
  });
});
