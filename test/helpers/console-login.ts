/**
 * Logging in to the console in tests, through the real OpenID Connect flow against the development provider
 * (services/console/dev-oidc): GET /admin/login → the provider's login form (any login name, any password) →
 * its consent form when it shows one → /admin/callback. The e-mail typed decides the role the console gives
 * (conf/net/console.conf: reader@itinera.local, operator@itinera.local), so the console under test must be
 * configured with the dev provider's issuer and client.
 */
import type { Page } from 'playwright-core';

/** Any password: the dev provider ignores it, but its form requires one. */
const DEV_PASSWORD = 'dev-provider-ignores-passwords';

export interface ConsoleLogin {
  /** The `Cookie` header value to send to the console. */
  cookie: string;
  /** To send as `x-csrf-token` with every POST. */
  csrfToken: string;
}

/**
 * Logs in as `email` with fetch and answers the console's cookie and CSRF token. Throws when the console does not
 * let that e-mail in (403 from /admin/callback) or the flow goes anywhere unexpected.
 */
export async function loginWithFetch(consoleBaseUrl: string, email: string): Promise<ConsoleLogin> {
  const { response, cookie } = await signInWithFetch(consoleBaseUrl, email);
  const location = response.headers.get('location');
  if (response.status !== 302 || location === null) {
    throw new Error(`login as ${email} refused: /admin/callback answered ${response.status}: ${await response.text()}`);
  }
  // The gate puts the session's CSRF token on every answer no cache keeps, as every API answer is.
  const me = await fetch(new URL('/admin/api/me', consoleBaseUrl), { headers: { cookie }, redirect: 'manual' });
  await me.body?.cancel();
  const csrfToken = me.headers.get('x-csrf-token');
  if (csrfToken === null) throw new Error(`no x-csrf-token on /admin/api/me after logging in as ${email}`);
  return { cookie, csrfToken };
}

/**
 * The flow up to the console's answer at /admin/callback, unread (302 to the page asked for, or 403 "not
 * allowed"), and the console's cookies as a `Cookie` header: for tests of the login itself.
 */
export async function signInWithFetch(
  consoleBaseUrl: string,
  email: string,
  next?: string,
): Promise<{ response: Response; cookie: string }> {
  const consoleOrigin = new URL(consoleBaseUrl).origin;
  const jar = new OriginCookieJar();
  let url = `${consoleBaseUrl}/admin/login${next === undefined ? '' : `?next=${encodeURIComponent(next)}`}`;
  let form: URLSearchParams | undefined;

  for (let step = 0; step < 20; step++) {
    const response = await fetch(url, {
      method: form === undefined ? 'GET' : 'POST',
      headers: { cookie: jar.header(url) },
      ...(form === undefined ? {} : { body: form }),
      redirect: 'manual',
    });
    jar.store(url, response);
    const at = new URL(url);
    if (at.origin === consoleOrigin && at.pathname === '/admin/callback') {
      return { response, cookie: jar.header(consoleBaseUrl) };
    }
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location !== null) {
      url = new URL(location, url).href;
      form = undefined;
      continue;
    }
    const html = await response.text();
    const devForm = response.status === 200 ? parseDevProviderForm(html, url) : undefined;
    if (devForm === undefined) throw new Error(`login as ${email} stopped at ${response.status} ${url}: ${html}`);
    url = devForm.action;
    form =
      devForm.prompt === 'login'
        ? new URLSearchParams({ prompt: 'login', login: email, password: DEV_PASSWORD })
        : new URLSearchParams({ prompt: devForm.prompt });
  }
  throw new Error(`login as ${email} did not reach /admin/callback in 20 steps`);
}

/**
 * Logs in as `email` in a real browser page: fills the dev provider's login form and presses its buttons, and
 * returns once the browser is back on a console page. Throws when the console refuses the e-mail.
 */
export async function loginInBrowser(page: Page, consoleBaseUrl: string, email: string): Promise<void> {
  const consoleOrigin = new URL(consoleBaseUrl).origin;
  await page.goto(`${consoleBaseUrl}/admin/login`);
  for (let step = 0; step < 5; step++) {
    const at = new URL(page.url());
    if (at.origin === consoleOrigin) {
      if (at.pathname === '/admin/callback') {
        throw new Error(`login as ${email} refused: ${await page.locator('body').innerText()}`);
      }
      return;
    }
    const before = page.url();
    const prompt = await page.locator('form input[name="prompt"]').getAttribute('value');
    if (prompt === 'login') {
      await page.locator('input[name="login"]').fill(email);
      await page.locator('input[name="password"]').fill(DEV_PASSWORD);
    }
    await page.locator('form button[type="submit"]').click();
    await page.waitForURL((u) => u.href !== before);
  }
  throw new Error(`login as ${email} in the browser did not come back to ${consoleOrigin}`);
}

/** The dev provider's interaction form (login or consent): where it posts and which prompt it answers. */
function parseDevProviderForm(html: string, pageUrl: string): { action: string; prompt: string } | undefined {
  const action = /<form[^>]*\baction="([^"]+)"/.exec(html)?.[1];
  const prompt = /<input[^>]*name="prompt"[^>]*value="([^"]+)"/.exec(html)?.[1];
  if (action === undefined || prompt === undefined) return undefined;
  return { action: new URL(action.replaceAll('&amp;', '&'), pageUrl).href, prompt };
}

/**
 * Cookies per origin, which is all this flow needs: the console and the provider each read only the cookies
 * they set, and each test starts with an empty jar. Path, Domain and expiry are not modelled, except that a
 * cookie set already expired (how servers delete one) is removed.
 */
class OriginCookieJar {
  private readonly byOrigin = new Map<string, Map<string, string>>();

  store(url: string, response: Response): void {
    const cookies = this.cookiesOf(url);
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      if (eq < 0) continue;
      const expired = attributes.some((a) => {
        const [key = '', value = ''] = a.trim().split('=');
        if (key.toLowerCase() === 'max-age') return Number(value) <= 0;
        return key.toLowerCase() === 'expires' && Date.parse(value) < Date.now();
      });
      if (expired) cookies.delete(name);
      else cookies.set(name, pair.slice(eq + 1).trim());
    }
  }

  header(url: string): string {
    return [...this.cookiesOf(url)].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private cookiesOf(url: string): Map<string, string> {
    const origin = new URL(url).origin;
    let cookies = this.byOrigin.get(origin);
    if (cookies === undefined) this.byOrigin.set(origin, (cookies = new Map()));
    return cookies;
  }
}
