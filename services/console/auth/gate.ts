import { timingSafeEqual } from 'node:crypto';
import type Koa from 'koa';
import type { ErrorCode } from '../../../shared/errors/index.js';
import type { CurrentOperator } from './current-operator.js';
import type { ConsoleOperator } from './session.js';

/** What the gate leaves for the routes behind it. */
export interface ConsoleAuthState {
  operator: ConsoleOperator;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const CSRF_HEADER = 'x-csrf-token';

/**
 * Everything under /admin past the login routes needs a session. Without one, the JSON API (and its OpenAPI
 * document) answers 401 and nothing else, so no data leaks; a page or asset GET is redirected to the login, which
 * brings the browser back afterwards. Paths outside /admin are not the console's: 404.
 *
 * With a session, a state-changing method must carry the session's CSRF token in `x-csrf-token` (the cookie is
 * SameSite=Lax, which already keeps it off cross-site POSTs; the token also covers same-site origins and old
 * browsers). Every authenticated answer no cache may keep carries the token in that header (the pages read it from /me).
 */
export function gate(current: CurrentOperator): Koa.Middleware {
  return async (ctx, next) => {
    if (!isConsolePath(ctx.path)) {
      return answerError(ctx, 404, 'NOT_FOUND', `no endpoint ${ctx.method} ${ctx.path}`);
    }
    const operator = await current(ctx);
    if (operator === undefined) {
      if (wantsJson(ctx)) return answerError(ctx, 401, 'AUTH_MISSING', 'not logged in: sign in at /admin/login');
      ctx.set('Cache-Control', 'no-store');
      return ctx.redirect(`/admin/login?next=${encodeURIComponent(ctx.url)}`);
    }
    if (!SAFE_METHODS.has(ctx.method) && !sameSecret(ctx.get(CSRF_HEADER), operator.csrfToken)) {
      return answerError(ctx, 403, 'AUTH_FORBIDDEN', 'missing or wrong CSRF token');
    }
    ctx.state['operator'] = operator;
    await next();
    // Nothing of the API is for a cache to keep, whatever answered it (a route, or the 404 of none).
    if (wantsJson(ctx) && !ctx.response.get('Cache-Control')) ctx.set('Cache-Control', 'no-store');
    // The token rides only on answers no cache keeps (the API's are no-store); a page or an asset a cache may
    // hold would hand it to whoever is served from that cache next.
    if (/no-store|private/.test(ctx.response.get('Cache-Control'))) ctx.set(CSRF_HEADER, operator.csrfToken);
  };
}

/** For the routes that change things: 403 unless the logged-in person is an operator. */
export const requireOperator: Koa.Middleware = async (ctx, next) => {
  const operator = ctx.state['operator'] as ConsoleOperator | undefined;
  if (operator === undefined) return answerError(ctx, 401, 'AUTH_MISSING', 'not logged in: sign in at /admin/login');
  if (operator.role !== 'operator') return answerError(ctx, 403, 'AUTH_FORBIDDEN', 'this needs the operator role');
  await next();
};

function isConsolePath(path: string): boolean {
  return path === '/admin' || path.startsWith('/admin/');
}

/** API calls, and anything but a GET or HEAD (a redirect would turn a POST into a GET of the login page). */
function wantsJson(ctx: Koa.Context): boolean {
  return (
    ctx.path === '/admin/api' ||
    ctx.path.startsWith('/admin/api/') ||
    ctx.path === '/admin/openapi.json' ||
    (ctx.method !== 'GET' && ctx.method !== 'HEAD')
  );
}

/** Timing-safe: how much of a guess matched must not show in how long the refusal takes. */
function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function answerError(ctx: Koa.Context, status: number, code: ErrorCode, message: string): void {
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error: { code, message } };
}
