import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import Router from '@koa/router';
import type Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../shared/config/index.js';
import { rawExchange } from '../../../test/helpers/raw-http.js';
import { createApp, type GatewayDeps } from '../app.js';
import type { GatewayState } from '../gateway-state.js';
import type { WebLog } from '../web-log.js';
import { phoneOpenApi } from './openapi.js';
import { openApiPath, type PhoneRoute } from './phone-route.js';
import { PHONE_ROUTES } from './phone-routes.js';

/*
 * The document against the gateway as it is really assembled: the Koa app of createApp, whose routers are walked for
 * what they register. Nothing behind the routes is called, so the stores are left out.
 */

const printed: string[] = [];
const stdout = new PassThrough();
stdout.on('data', (chunk: Buffer) => printed.push(chunk.toString('utf8')));
const quietLog = new Proxy({}, { get: () => () => false }) as WebLog;
const app = createApp({
  config: loadConfig({ env: {} }),
  webLog: quietLog,
  probes: {},
  stdout,
} as Partial<GatewayDeps> as GatewayDeps);

type Doc = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown> };
};
type Operation = {
  operationId?: string;
  parameters?: { in: string; name: string; required?: boolean }[];
  requestBody?: { content: Record<string, { schema?: unknown }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
};

const doc = phoneOpenApi(PHONE_ROUTES, '0.0.0-test') as unknown as Doc;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** `METHOD /path` of every route the app's routers register (HEAD is Koa's own twin of each GET). */
function registeredRoutes(koa: Koa<GatewayState>, extra: Router<GatewayState>[] = []): string[] {
  const routers = koa.middleware
    .map((m) => (m as { router?: Router<GatewayState> }).router)
    .filter((r): r is Router<GatewayState> => r !== undefined);
  const out: string[] = [];
  for (const router of [...routers, ...extra])
    for (const layer of router.stack)
      for (const method of layer.methods) if (method !== 'HEAD') out.push(`${method} ${String(layer.path)}`);
  return out.sort();
}

const declaredRoutes = (routes: readonly PhoneRoute[]) =>
  routes.map((r) => `${r.method.toUpperCase()} ${r.path}`).sort();

/** What one side has and the other lacks. */
function mismatch(registered: readonly string[], declared: readonly string[]) {
  return {
    undeclared: registered.filter((r) => !declared.includes(r)),
    unregistered: declared.filter((d) => !registered.includes(d)),
  };
}

describe('the phone API declaration', () => {
  it('declares every route the gateway registers, and registers every route it declares', () => {
    const registered = registeredRoutes(app);
    // The walk finds the routers: an empty list would make the comparison vacuous.
    expect(registered.length).toBeGreaterThanOrEqual(20);
    expect(mismatch(registered, declaredRoutes(PHONE_ROUTES))).toEqual({ undeclared: [], unregistered: [] });
    expect(new Set(declaredRoutes(PHONE_ROUTES)).size, 'a route declared twice').toBe(PHONE_ROUTES.length);
  });

  it('names a route added to a router without a declaration, and a declaration without its route', () => {
    const added = new Router<GatewayState>();
    added.post('/usercache/put_more', () => undefined);
    const registered = registeredRoutes(app, [added]);
    const declared = declaredRoutes(PHONE_ROUTES.filter((r) => r.path !== '/profile/get'));
    expect(mismatch(registered, declared)).toEqual({
      undeclared: ['POST /profile/get', 'POST /usercache/put_more'],
      unregistered: [],
    });
    expect(mismatch(registeredRoutes(app), [...declaredRoutes(PHONE_ROUTES), 'GET /nowhere']).unregistered).toEqual([
      'GET /nowhere',
    ]);
  });

  it('gives every route a body schema and an example it accepts when the route takes a body', () => {
    for (const r of PHONE_ROUTES) {
      const where = `${r.method} ${r.path}`;
      expect(r.method === 'post', where).toBe(r.body !== undefined);
      if (r.body) expect(r.body.safeParse(r.example).success, where).toBe(true);
      expect(r.answers[200], where).toBeDefined();
    }
  });
});

/** Every `$ref` in the document, wherever it is. */
function refs(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refs(v, found);
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') found.push(v);
      else refs(v, found);
    }
  return found;
}

describe('/openapi.json as OpenAPI 3.1', () => {
  it('is a 3.1 document with a title and a version', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info.title).not.toBe('');
    expect(doc.info.version).toBe('0.0.0-test');
  });

  it('has an operation with responses, each described, for every path, and unique operation ids', () => {
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths)) {
      expect(path.startsWith('/'), path).toBe(true);
      const operations = Object.entries(item).filter(([k]) => HTTP_METHODS.includes(k));
      expect(operations.length, path).toBeGreaterThan(0);
      for (const [method, op] of operations) {
        const where = `${method} ${path}`;
        const responses = Object.entries(op.responses ?? {});
        expect(responses.length, where).toBeGreaterThan(0);
        for (const [status, response] of responses) {
          expect(status, where).toMatch(/^[1-5]\d\d$|^default$/);
          expect(typeof response.description, `${where} ${status}`).toBe('string');
          for (const media of Object.values(response.content ?? {}))
            expect(media.schema, `${where} ${status}`).toBeDefined();
        }
        expect(op.responses?.['500'], where).toBeDefined();
        expect(op.operationId, where).toBeDefined();
        expect(ids.has(op.operationId!), where).toBe(false);
        ids.add(op.operationId!);
      }
    }
  });

  it('declares each path template parameter as a required path parameter', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      const inTemplate = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      for (const op of Object.values(item)) {
        const declared = (op.parameters ?? []).filter((p) => p.in === 'path');
        expect(declared.map((p) => p.name).sort(), path).toEqual(inTemplate);
        for (const p of declared) expect(p.required, `${path} ${p.name}`).toBe(true);
      }
    }
  });

  it('resolves every $ref to a component', () => {
    const found = refs(doc);
    expect(found.length).toBeGreaterThan(0);
    for (const ref of found) {
      expect(ref, ref).toMatch(/^#\/components\/schemas\/[^/]+$/);
      expect(doc.components?.schemas, ref).toHaveProperty(ref.split('/').pop()!);
    }
  });

  it('answers each declared refusal with the error answer, and the put’s statuses as the put refuses', () => {
    for (const r of PHONE_ROUTES) {
      const op = doc.paths[openApiPath(r.path)]![r.method]!;
      for (const status of Object.keys(r.refusals)) {
        if (r.answers[Number(status)]) continue;
        expect(JSON.stringify(op.responses?.[status]), `${r.path} ${status}`).toContain('ErrorAnswer');
      }
    }
    const put = doc.paths['/usercache/put']!['post']!;
    expect(Object.keys(put.responses ?? {}).sort()).toEqual(
      ['200', '400', '401', '403', '408', '410', '413', '415', '500', '503'].sort(),
    );
    expect(Object.keys(doc.paths['/export/{format}']!['post']!.responses ?? {})).toEqual(
      expect.arrayContaining(['404', '409', '429', '503']),
    );
  });
});

describe('GET /openapi.json', () => {
  let url: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/openapi.json`;
    close = () => new Promise((r) => server.close(() => r()));
  });
  afterAll(async () => close());

  it('serves the document without a token, cacheable, and 304 when unchanged', async () => {
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    const served = (await res.json()) as Doc;
    expect(served.openapi).toBe(doc.openapi);
    expect(Object.keys(served.paths).sort()).toEqual(Object.keys(doc.paths).sort());
    const etag = res.headers.get('etag');
    expect(etag).toMatch(/^"/);
    // A bare request: fetch adds "Cache-Control: no-cache" to conditional requests, which no cache answers 304.
    const again = await rawExchange(
      url,
      `GET /openapi.json HTTP/1.1\r\nHost: x\r\nIf-None-Match: ${etag}\r\nConnection: close\r\n\r\n`,
    );
    expect(again.status).toBe(304);
    // A tool's read is no phone call: it leaves no START/END lines.
    expect(printed.join('')).not.toContain('/openapi.json');
  });
});
