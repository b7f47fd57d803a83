import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { PassThrough } from 'node:stream';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayState } from '../gateway-state.js';
import { BodyBudget } from './body-budget.js';
import { limitBody } from './body-limits.js';
import { errorHandler } from '../../../shared/http/index.js';
import { parseJsonBody } from './json-body.js';

/**
 * @koa/bodyparser under the gateway's bounds, on a real socket: the bounds body-limits.ts puts on the bytes hold
 * for what the parser reads, and its failures are the gateway's AppErrors.
 */

const LIMIT = 1000;
const budget = new BodyBudget(3000);
let url: URL;
let close: () => Promise<void>;
let seen: unknown[] = [];

beforeAll(async () => {
  const app = new Koa<GatewayState>();
  app.use(errorHandler({ stdout: new PassThrough() }));
  app.use(async (ctx, next) => {
    ctx.state.route = ctx.path;
    return next();
  });
  app.use(limitBody({ boundsFor: () => ({ limitBytes: LIMIT, budget }), idleTimeoutMs: 600, minBytesPerSecond: 100 }));
  app.use(parseJsonBody({ limitFor: () => LIMIT }));
  app.use(async (ctx) => {
    seen.push(ctx.request.body);
    ctx.body = { ok: true, held: budget.heldBytes };
  });
  app.on('error', () => undefined);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  close = () => new Promise((r) => server.close(() => r()));
});
afterAll(async () => {
  await close();
});

async function post(body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) {
  const res = await fetch(new URL('/any/call', url), { method: 'POST', body, headers });
  return { status: res.status, body: (await res.json()) as any };
}

/** Headers, then body pieces sent with pauses between them; resolves with the status line's code. */
function slowPost(head: string, pieces: string[], pauseMs: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    let text = '';
    let open = true;
    socket.on('data', (c) => (text += c.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      open = false;
      resolve({ status: Number(text.split(' ')[1] ?? 0), text });
    });
    socket.on('connect', async () => {
      socket.write(`POST /any/call HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${head}\r\n`);
      for (const piece of pieces) {
        if (!open) return;
        socket.write(piece);
        await new Promise((r) => setTimeout(r, pauseMs));
      }
    });
  });
}

describe('parseJsonBody (@koa/bodyparser within the body bounds)', () => {
  it('When a JSON object arrives as application/json, then the route gets it parsed and the budget is given back', async () => {
    seen = [];
    expect(await post('{"user": "a", "n": 1}')).toEqual({ status: 200, body: { ok: true, held: 21 } });
    expect((await post('{"user": "b"}', { 'content-type': 'application/json; charset=UTF-8' })).status).toBe(200);
    expect(seen).toEqual([{ user: 'a', n: 1 }, { user: 'b' }]);
    expect(budget.heldBytes).toBe(0);
  });

  it('When there is no body, then the route gets {}', async () => {
    seen = [];
    const res = await fetch(new URL('/any/call', url), { method: 'POST' });
    expect(res.status).toBe(200);
    expect(seen).toEqual([{}]);
  });

  it.each<[string, string, Record<string, string>, number, RegExp]>([
    ['not JSON', '{"user": ', { 'content-type': 'application/json' }, 400, /not valid JSON/],
    ['a JSON list', '[{"user": "a"}]', { 'content-type': 'application/json' }, 400, /must be a JSON object/],
    ['a JSON string', '"user"', { 'content-type': 'application/json' }, 400, /not valid JSON/],
    ['a form', 'user=a', { 'content-type': 'application/x-www-form-urlencoded' }, 415, /application\/json/],
    // What any web page may send cross-site without a preflight: JSON text declared as text/plain.
    ['JSON as text/plain', '{"user": "a"}', { 'content-type': 'text/plain' }, 415, /application\/json/],
    ['no type', '{"user": "a"}', { 'content-type': '' }, 415, /got none/],
    ['compressed', '{"user": "a"}', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, 415, /gzip/],
    [
      'over the limit',
      JSON.stringify({ pad: 'x'.repeat(LIMIT) }),
      { 'content-type': 'application/json' },
      413,
      /limit/,
    ],
  ])('When the body is %s, then %i', async (_name, body, headers, status, message) => {
    const res = await post(body, headers);
    expect(res.status).toBe(status);
    expect(res.body.error.message).toMatch(message);
  });

  it('When the JSON nests deeper than 64 levels, then 400 naming the field', async () => {
    const res = await post(`{"user": "a", "deep": ${'{"a": '.repeat(70)}1${'}'.repeat(70)}}`);
    expect(res.status).toBe(400);
    expect(res.body.error.field).toMatch(/^deep\.a\.a\.a\.a\.a… \(\d+ levels\)$/);
  });

  it('When a chunked body without a length passes the limit as it arrives, then 413 and the connection is closed', async () => {
    const res = await slowPost(
      'Transfer-Encoding: chunked\r\n',
      [`3e8\r\n{"pad":"${'x'.repeat(992)}\r\n`, '5\r\nxxxxx\r\n'],
      50,
    );
    expect(res.status).toBe(413);
    expect(res.text.toLowerCase()).toContain('connection: close');
    expect(budget.heldBytes).toBe(0);
  });

  it('When a client stops sending, or trickles, then 408 BODY_TIMEOUT', async () => {
    const stopped = await slowPost('Content-Length: 100\r\n', ['{"user"'], 5000);
    expect(stopped.status).toBe(408);
    expect(stopped.text).toMatch(/BODY_TIMEOUT/);
    const trickled = await slowPost(
      'Content-Length: 500\r\n',
      Array.from({ length: 20 }, () => '  '),
      150,
    );
    expect(trickled.status).toBe(408);
    expect(budget.heldBytes).toBe(0);
  });

  it('When the bodies in flight would pass the budget, then the next one is 503 with Retry-After', async () => {
    const holders = [1, 2, 3].map(() => slowPost('Content-Length: 999\r\n', [`{"pad": "${'x'.repeat(900)}`], 400));
    await new Promise((r) => setTimeout(r, 100));
    const res = await post(JSON.stringify({ pad: 'y'.repeat(400) }));
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('OVERLOADED');
    await Promise.all(holders);
    expect(budget.heldBytes).toBe(0);
  });
});
