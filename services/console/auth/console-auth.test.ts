import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig, type Config } from '../../../shared/config/index.js';
import type { Logger } from '../../../shared/logger/index.js';
import { browserAvailable, launchBrowser } from '../../../test/helpers/browser.js';
import { loginInBrowser, loginWithFetch, signInWithFetch } from '../../../test/helpers/console-login.js';
import { startDevOidcProvider, type DevOidcProvider } from '../dev-oidc/dev-provider.js';
import { createConsoleAuth } from './index.js';

interface TestConsole {
  baseUrl: string;
  audit: { info: ReturnType<typeof vi.fn>; warn: ReturnType<typeof vi.fn> };
  close(): Promise<void>;
}

async function listening(server: Server, port = 0): Promise<number> {
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** The console's configuration as conf/net/console.conf has it (its reader/operator e-mails), pointed at `issuer`. */
function consoleConfig(publicUrl: string, issuer: string): Config['console'] {
  return loadConfig({ env: { CONSOLE_PUBLIC_URL: publicUrl, CONSOLE_OIDC_ISSUER: issuer } }).console;
}

/**
 * A console app with the auth middleware and two dummy routes, listening on a free port. Its port is taken first,
 * because the provider must know the console's redirect URI and the console the provider's issuer.
 */
async function startConsole(issuerFor: (callbackUrl: string) => Promise<string>): Promise<TestConsole> {
  const server = createServer();
  const baseUrl = `http://127.0.0.1:${await listening(server)}`;
  const config = consoleConfig(baseUrl, await issuerFor(`${baseUrl}/admin/callback`));
  const audit = { info: vi.fn(), warn: vi.fn() };
  const auth = createConsoleAuth({ config, audit: audit as unknown as Logger });
  const app = new Koa();
  for (const middleware of auth.middleware) app.use(middleware);
  app.use(async (ctx, next) => {
    // As the console's own: the API is no-store, a page may be kept by a cache (and revalidated).
    if (ctx.method === 'GET' && ctx.path === '/admin/api/me') {
      ctx.body = ctx.state['operator'];
      ctx.set('Cache-Control', 'no-store');
    } else if (ctx.method === 'GET' && ctx.path === '/admin/index.html') {
      ctx.body = '<!doctype html><title>console</title>';
      ctx.set('Cache-Control', 'no-cache');
    } else if (ctx.method === 'POST' && ctx.path === '/admin/api/thing') ctx.body = { done: true };
    else if (ctx.method === 'POST' && ctx.path === '/admin/api/operator-thing')
      await auth.requireOperator(ctx, async () => {
        ctx.body = { done: true };
      });
    else await next();
  });
  server.on('request', app.callback());
  return {
    baseUrl,
    audit,
    close: () => new Promise((resolve) => (server.close(() => resolve()), server.closeAllConnections())),
  };
}

describe('console auth against the development OIDC provider', () => {
  let provider: DevOidcProvider;
  let consoleApp: TestConsole;

  beforeAll(async () => {
    consoleApp = await startConsole(async (callbackUrl) => {
      provider = await startDevOidcProvider({
        port: 0,
        client: {
          clientId: 'itinera-console',
          clientSecret: 'itinera-development-only-secret',
          redirectUris: [callbackUrl],
        },
      });
      return provider.issuer;
    });
  });
  afterAll(async () => {
    await consoleApp?.close();
    await provider?.close();
  });

  const get = (path: string, cookie?: string) =>
    fetch(`${consoleApp.baseUrl}${path}`, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  const post = (path: string, cookie: string, csrfToken?: string) =>
    fetch(`${consoleApp.baseUrl}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, ...(csrfToken === undefined ? {} : { 'x-csrf-token': csrfToken }) },
    });

  it('When there is no session, then the API answers 401 with no data and a page redirects to the login', async () => {
    const api = await get('/admin/api/me');
    expect(api.status).toBe(401);
    expect(await api.json()).toEqual({ error: { code: 'AUTH_MISSING', message: expect.any(String) } });
    expect((await get('/admin/openapi.json')).status).toBe(401);

    const page = await get('/admin/day.html?user=u1&date=2024-05-01');
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toBe(
      `/admin/login?next=${encodeURIComponent('/admin/day.html?user=u1&date=2024-05-01')}`,
    );
    expect((await get('/admin/index.html')).status).toBe(302);
  });

  it('When a path is outside /admin, then it is not the console’s: 404 JSON', async () => {
    const answer = await get('/api/me');
    expect(answer.status).toBe(404);
    expect((await answer.json()).error.code).toBe('NOT_FOUND');
  });

  it('When operator@itinera.local logs in, then the session says operator, and the login is audited', async () => {
    const { cookie, csrfToken } = await loginWithFetch(consoleApp.baseUrl, 'operator@itinera.local');
    const me = await get('/admin/api/me', cookie);
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual({
      email: 'operator@itinera.local',
      role: 'operator',
      csrfToken,
      sessionId: expect.any(String),
    });
    expect(me.headers.get('x-csrf-token')).toBe(csrfToken);
    expect(csrfToken).toMatch(/^[\w-]{43}$/);
    // A page a cache may keep does not carry it.
    const page = await get('/admin/index.html', cookie);
    expect(page.status).toBe(200);
    expect(page.headers.get('x-csrf-token')).toBeNull();
    expect(consoleApp.audit.info).toHaveBeenCalledWith('Console login', {
      email: 'operator@itinera.local',
      role: 'operator',
      programs: 'all',
    });
  });

  it('When reader@itinera.local logs in, then the session says reader, and operator-only routes refuse it', async () => {
    const { cookie, csrfToken } = await loginWithFetch(consoleApp.baseUrl, 'reader@itinera.local');
    expect((await (await get('/admin/api/me', cookie)).json()).role).toBe('reader');
    const refused = await post('/admin/api/operator-thing', cookie, csrfToken);
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.code).toBe('AUTH_FORBIDDEN');
    expect((await post('/admin/api/thing', cookie, csrfToken)).status).toBe(200);
  });

  it('When an operator calls an operator-only route, then it runs', async () => {
    const { cookie, csrfToken } = await loginWithFetch(consoleApp.baseUrl, 'operator@itinera.local');
    const answer = await post('/admin/api/operator-thing', cookie, csrfToken);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ done: true });
  });

  it('When an e-mail is in no list, then the callback answers 403 "not allowed" and no session exists', async () => {
    const { response, cookie } = await signInWithFetch(consoleApp.baseUrl, 'stranger@example.org');
    expect(response.status).toBe(403);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    expect(await response.text()).toMatch(/your account is not allowed/i);
    expect(cookie).toBe('');
    expect((await get('/admin/api/me', cookie)).status).toBe(401);
    expect(consoleApp.audit.info).toHaveBeenCalledWith('Console login refused', { email: 'stranger@example.org' });
  });

  it('When a POST has no or a wrong CSRF token, then it is refused 403; with the session’s token it passes', async () => {
    const { cookie, csrfToken } = await loginWithFetch(consoleApp.baseUrl, 'operator@itinera.local');
    for (const token of [undefined, 'wrong', `${csrfToken.slice(0, -1)}x`]) {
      const refused = await post('/admin/api/thing', cookie, token);
      expect(refused.status).toBe(403);
      expect(await refused.json()).toEqual({
        error: { code: 'AUTH_FORBIDDEN', message: 'missing or wrong CSRF token' },
      });
    }
    expect((await post('/admin/api/thing', cookie, csrfToken)).status).toBe(200);
  });

  it('When the login sets its cookie, then it is signed, HttpOnly and SameSite=Lax, and helmet headers are on', async () => {
    const { response } = await signInWithFetch(consoleApp.baseUrl, 'reader@itinera.local');
    const setCookies = response.headers.getSetCookie();
    expect(setCookies.some((c) => c.startsWith('itinera.console.sig='))).toBe(true);
    const session = setCookies.find((c) => c.startsWith('itinera.console='));
    expect(session).toMatch(/;\s*httponly/i);
    expect(session).toMatch(/;\s*samesite=lax/i);
    expect(session).not.toMatch(/;\s*secure/i);

    const page = await get('/admin/index.html');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self' 'unsafe-inline'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('strict-transport-security')).toBeNull();
  });

  it('When a login carries ?next=, then the callback returns there, and only to console paths', async () => {
    const back = await signInWithFetch(consoleApp.baseUrl, 'reader@itinera.local', '/admin/day.html?user=u1');
    expect(back.response.headers.get('location')).toBe('/admin/day.html?user=u1');
    const away = await signInWithFetch(consoleApp.baseUrl, 'reader@itinera.local', '//evil.example/admin/');
    expect(away.response.headers.get('location')).toBe('/admin/');
  });

  it('When the operator logs out (with the CSRF token), then the cookie is cleared and the session is over', async () => {
    const { cookie, csrfToken } = await loginWithFetch(consoleApp.baseUrl, 'operator@itinera.local');
    expect((await post('/admin/logout', cookie)).status).toBe(403);
    const logout = await post('/admin/logout', cookie, csrfToken);
    expect(logout.status).toBe(204);
    const cleared = logout.headers.getSetCookie().find((c) => c.startsWith('itinera.console='));
    expect(cleared).toMatch(/^itinera\.console=;.*expires=Thu, 01 Jan 1970/i);
    expect((await get('/admin/api/me')).status).toBe(401);
    // A copy of the cookie, kept from before the logout, is refused: the session ended on the server too.
    expect((await get('/admin/api/me', cookie)).status).toBe(401);
    expect(consoleApp.audit.info).toHaveBeenCalledWith('Console logout', {
      email: 'operator@itinera.local',
      role: 'operator',
    });
  });

  it('When the login is asked for ?prompt=login, then the provider is asked to show its form again', async () => {
    const plain = new URL((await get('/admin/login')).headers.get('location') ?? '');
    const fresh = new URL((await get('/admin/login?prompt=login')).headers.get('location') ?? '');
    expect(plain.origin).toBe(provider.issuer);
    expect(plain.searchParams.get('prompt')).toBeNull();
    expect(plain.searchParams.get('code_challenge_method')).toBe('S256');
    expect(plain.searchParams.get('scope')).toBe('openid email profile');
    expect(fresh.searchParams.get('prompt')).toBe('login');
  });

  it('When /admin/login is called with another method than GET, then it answers 405, not a login loop', async () => {
    const answer = await fetch(`${consoleApp.baseUrl}/admin/login`, { method: 'HEAD', redirect: 'manual' });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET');
  });

  it('When the callback comes without a login started in this browser, then it answers 400 and logs no one in', async () => {
    const answer = await get('/admin/callback?code=stolen&state=whatever');
    expect(answer.status).toBe(400);
    expect(answer.headers.getSetCookie()).toEqual([]);
  });

  describe.skipIf(!browserAvailable())('in a real browser', () => {
    it('When loginInBrowser fills the dev provider’s form, then the browser holds an operator session', async () => {
      const browser = await launchBrowser();
      try {
        const context = await browser.newContext();
        const page = await context.newPage();
        await loginInBrowser(page, consoleApp.baseUrl, 'operator@itinera.local');
        expect(new URL(page.url()).pathname).toBe('/admin/');

        const me = await page.goto(`${consoleApp.baseUrl}/admin/api/me`);
        expect(await me?.json()).toMatchObject({ email: 'operator@itinera.local', role: 'operator' });
        const session = (await context.cookies(consoleApp.baseUrl)).find((c) => c.name === 'itinera.console');
        expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
      } finally {
        await browser.close();
      }
    }, 60_000);
  });
});

describe('console auth when the provider starts after the console', () => {
  it('When the first login finds no provider, then it answers 503, and a later one discovers it and works', async () => {
    const probe = createServer();
    const port = await listening(probe);
    await new Promise((resolve) => probe.close(resolve));
    let callback = '';
    const consoleApp = await startConsole(async (callbackUrl) => {
      callback = callbackUrl;
      return `http://127.0.0.1:${port}`;
    });
    let provider: DevOidcProvider | undefined;
    try {
      const early = await fetch(`${consoleApp.baseUrl}/admin/login`, { redirect: 'manual' });
      expect(early.status).toBe(503);
      expect(early.headers.get('retry-after')).toBe('5');

      provider = await startDevOidcProvider({
        port,
        client: {
          clientId: 'itinera-console',
          clientSecret: 'itinera-development-only-secret',
          redirectUris: [callback],
        },
      });
      const { cookie } = await loginWithFetch(consoleApp.baseUrl, 'operator');
      const me = await fetch(`${consoleApp.baseUrl}/admin/api/me`, { headers: { cookie } });
      expect((await me.json()).email).toBe('operator@itinera.local');
    } finally {
      await consoleApp.close();
      await provider?.close();
    }
  });
});
