/**
 * The console app's handling of what a browser or a script sends it, behind a real login (the development OIDC
 * provider): bodies of the wrong type, broken or oversized bodies and crafted paths are 4xx answers, never a 500;
 * a bulk action says "all" in a field of its own. The route table here is the console's real request schemas on
 * a handler that echoes what it was given.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../shared/config/index.js';
import type { Logger } from '../../shared/logger/index.js';
import { loginWithFetch, type ConsoleLogin } from '../../test/helpers/console-login.js';
import { route } from './api/route-table.js';
import * as s from './api/schemas.js';
import { createConsoleApp } from './app.js';
import { createConsoleAuth } from './auth/index.js';
import { startDevOidcProvider, type DevOidcProvider } from './dev-oidc/dev-provider.js';

const quiet = { info: () => undefined, warn: () => undefined } as unknown as Logger;
const echo = (path: string, body: z.ZodType) =>
  route({
    method: 'post',
    path,
    summary: path,
    operator: true,
    body,
    response: z.unknown(),
    handle: async (i) => i.body,
  });

let provider: DevOidcProvider;
let baseUrl: string;
let login: ConsoleLogin;
const server = createServer();

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dev = loadConfig({ env: {} }).console;
  provider = await startDevOidcProvider({
    port: 0,
    client: {
      clientId: dev.oidc.clientId,
      clientSecret: dev.oidc.clientSecret,
      redirectUris: [`${baseUrl}/admin/callback`],
    },
  });
  const config = { ...dev, publicUrl: baseUrl, oidc: { ...dev.oidc, issuer: provider.issuer } };
  const app = createConsoleApp({
    config,
    auth: createConsoleAuth({ config, audit: quiet }),
    routes: [echo('/admin/api/replay', s.ReplayRequest), echo('/admin/api/reset', s.ResetRequest)],
    stdout: { write: () => true } as unknown as NodeJS.WritableStream,
  });
  server.on('request', app.callback());
  login = await loginWithFetch(baseUrl, 'operator@itinera.local');
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await provider?.close();
});

const send = (path: string, body: string, type = 'application/json') =>
  fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { cookie: login.cookie, 'x-csrf-token': login.csrfToken, 'content-type': type },
    body,
  });

describe('the console app', () => {
  it('When a POST is not JSON (a form or text/plain, as any web page can send), then it is a 415 and nothing runs', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await send('/admin/api/replay', '{"all":true}', type);
      expect(res.status, type).toBe(415);
      expect((await res.json()).error.code, type).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
  });

  it('When a body is broken JSON or over the limit, then it is a 400 or a 413, not a 500', async () => {
    const broken = await send('/admin/api/replay', '{"all": tru');
    expect(broken.status).toBe(400);
    expect((await broken.json()).error.message).toMatch(/not valid JSON/);
    const huge = await send('/admin/api/replay', JSON.stringify({ all: true, pad: 'x'.repeat(3 * 1024 * 1024) }));
    expect(huge.status).toBe(413);
  });

  it('When a path is encoded twice to climb out of the pages, then it is a 404', async () => {
    for (const path of ['/admin/js/%252e%252e/%252e%252e/package.json', '/admin/%252e%252e/conf/net/console.conf']) {
      const res = await fetch(`${baseUrl}${path}`, { headers: { cookie: login.cookie } });
      expect(res.status, path).toBe(404);
    }
  });

  it('When a replay or a reset leaves out whom it is for, then it is refused: "all" and "everyone" are said, not implied', async () => {
    for (const [path, body] of [
      ['/admin/api/replay', {}],
      ['/admin/api/replay', { selection: [] }],
      ['/admin/api/replay', { all: false }],
      ['/admin/api/reset', { dryRun: false }],
      ['/admin/api/reset', { everyone: true, userId: '0b5ee4e3-2f4e-4c45-9f53-0c8a7b2f0e11' }],
    ] as const) {
      const res = await send(path, JSON.stringify(body));
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400);
    }
    expect(await (await send('/admin/api/replay', JSON.stringify({ all: true }))).json()).toEqual({ all: true });
    expect(await (await send('/admin/api/reset', JSON.stringify({ everyone: true }))).json()).toEqual({
      everyone: true,
      dryRun: true,
    });
  });
});
