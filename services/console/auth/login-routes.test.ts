import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorHandler } from '../../../shared/http/index.js';
import { createRateLimits } from '../../../shared/http/rate-limits.js';
import type { Logger } from '../../../shared/logger/index.js';
import { createEndedSessionsInMemory } from './ended-sessions.js';
import { currentOperator } from './current-operator.js';
import { loginRoutes } from './login-routes.js';
import type { RoleRules } from './roles.js';
import { sessionMiddleware } from './session.js';

const rules: RoleRules = {
  emailVerified: 'required',
  readerEmails: [],
  operatorEmails: [],
  groupClaim: 'groups',
  readerGroups: [],
  operatorGroups: [],
  programAdminEmails: {},
  programAdminGroups: {},
};
const quiet = { info: () => undefined, warn: () => undefined } as unknown as Logger;

let server: ReturnType<Koa['listen']>;
let base: string;
beforeAll(async () => {
  const app = new Koa();
  // As behind the TLS proxy: the address is the one it forwards (the loopback address itself is never counted).
  app.proxy = true;
  app.maxIpsCount = 1;
  app.use(errorHandler({ stdout: { write: () => true } as unknown as NodeJS.WritableStream }));
  app.use(sessionMiddleware({ sessionKeys: ['test-key'], secure: false }));
  app.use(
    loginRoutes({
      oidc: {
        startLogin: async (next) => ({
          url: new URL('https://login.example.org/authorize'),
          pending: { state: 's', nonce: 'n', codeVerifier: 'v', next },
        }),
        finishLogin: async () => ({}),
      },
      rules,
      current: currentOperator(rules, createEndedSessionsInMemory()),
      audit: quiet,
      log: quiet,
      limits: createRateLimits({ 'console-login': { perAddress: 3, perToken: 3 } }),
    }),
  );
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const login = (from: string, path = '/admin/login') =>
  fetch(`${base}${path}`, { redirect: 'manual', headers: { 'x-forwarded-for': from } });

describe('console login routes', () => {
  it('When one address starts more logins and callbacks a minute than allowed, then it gets 429 with Retry-After, and others still get in', async () => {
    const statuses = [];
    for (const path of ['/admin/login', '/admin/callback', '/admin/login', '/admin/login'])
      statuses.push((await login('203.0.113.9', path)).status);
    expect(statuses).toEqual([302, 400, 302, 429]);
    const refused = await login('203.0.113.9');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await refused.json()).error.code).toBe('RATE_LIMITED');
    expect((await login('198.51.100.7')).status).toBe(302);
    // An address the client writes before the proxy's own (loopback, which is never counted, or any other) changes
    // nothing: the proxy's entry counts.
    expect((await login('127.0.0.1, 203.0.113.9')).status).toBe(429);
  });
});
