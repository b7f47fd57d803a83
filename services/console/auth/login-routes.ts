import type Koa from 'koa';
import { isAppError } from '../../../shared/errors/index.js';
import type { RateLimits } from '../../../shared/http/rate-limits.js';
import type { Logger } from '../../../shared/logger/index.js';
import type { ConsoleOidcClient } from './oidc-client.js';
import { authPage } from './pages.js';
import { safeReturnPath } from './return-path.js';
import { accessFromClaims, emailClaim, type RoleRules } from './roles.js';
import { describeScope } from '../scope/program-scope.js';
import { endSession, pendingLogin, startPendingLogin, startSignedInSession, type ConsoleOperator } from './session.js';
import { claimsToKeep, type CurrentOperator } from './current-operator.js';
import type { EndedSessions } from './ended-sessions.js';

/** Seconds a browser is told to wait before retrying when the provider cannot be reached. */
const RETRY_AFTER_S = 5;

interface LoginDeps {
  oidc: ConsoleOidcClient;
  rules: RoleRules;
  current: CurrentOperator;
  audit: Logger;
  log: Logger;
  /** Logins and callbacks per address (LOGIN_ALLOWANCE); none counted by default. */
  limits?: RateLimits<'console-login'> | undefined;
}

/**
 * Logins and callbacks one address may start per minute: a person signs in a few times a day; a script hammering the
 * two open routes (each login makes a pending session, each callback a call to the provider) gets 429.
 */
export const LOGIN_ALLOWANCE = { perAddress: 30, perToken: 30 };

/**
 * GET /admin/login (`?next=/admin/…` to come back to a page; `?prompt=login` to have the provider ask for
 * credentials again, to switch accounts: the provider's own session outlives a console logout) and
 * GET /admin/callback, where the provider sends the browser back. Both are open to anyone, so they run before
 * the gate; only a callback matching the login started in this browser (state, PKCE, nonce) creates a session.
 */
export function loginRoutes({ oidc, rules, current, audit, log, limits }: LoginDeps): Koa.Middleware {
  const login = async (ctx: Koa.Context): Promise<void> => {
    const next = safeReturnPath(ctx.query['next']);
    const forceLogin = ctx.query['prompt'] === 'login';
    if ((await current(ctx)) && !forceLogin) return ctx.redirect(next);
    try {
      const { url, pending } = await oidc.startLogin(next, { forceLogin });
      startPendingLogin(ctx, pending);
      ctx.set('Cache-Control', 'no-store');
      ctx.redirect(url.href);
    } catch (err) {
      if (!isProviderOutage(err)) throw err;
      providerUnreachable(ctx, err, log);
    }
  };

  const callback = async (ctx: Koa.Context): Promise<void> => {
    ctx.set('Cache-Control', 'no-store');
    const pending = pendingLogin(ctx);
    if (pending === undefined) {
      return answerPage(ctx, 400, {
        title: 'No sign-in in progress',
        message: 'This sign-in expired or was started in another tab or browser. Please sign in again.',
        link: { href: '/admin/login', text: 'Sign in' },
      });
    }
    let claims: Record<string, unknown>;
    try {
      claims = await oidc.finishLogin(ctx.querystring, pending);
    } catch (err) {
      endSession(ctx);
      if (isProviderOutage(err)) return providerUnreachable(ctx, err, log);
      log.warn('Console sign-in failed', { reason: err instanceof Error ? err.message : String(err) });
      return answerPage(ctx, 400, {
        title: 'Sign-in failed',
        message: `The sign-in provider's answer was not accepted (${err instanceof Error ? err.message : String(err)}).`,
        link: { href: '/admin/login', text: 'Try again' },
      });
    }

    const email = emailClaim(claims) ?? '(no e-mail)';
    const access = accessFromClaims(claims, rules);
    if (access === undefined) {
      endSession(ctx);
      audit.info('Console login refused', { email });
      return answerPage(ctx, 403, {
        title: 'Your account is not allowed',
        message: `${email} is not allowed in the Itinera console. Ask an operator to add it to the console's readers, operators or a program's admins.`,
        link: { href: '/admin/login?prompt=login', text: 'Sign in with another account' },
      });
    }
    // The cookie holds what the provider said, signed; the role is worked out from it again at every request.
    startSignedInSession(ctx, claimsToKeep(claims, rules));
    audit.info('Console login', { email, role: access.role, programs: describeScope(access.programs) });
    ctx.redirect(pending.next);
  };

  return async (ctx, next) => {
    const open = ctx.method === 'GET' && (ctx.path === '/admin/login' || ctx.path === '/admin/callback');
    if (open) await limits?.take('console-login', ctx.ip, undefined);
    if (ctx.method === 'GET' && ctx.path === '/admin/login') return login(ctx);
    if (ctx.method === 'GET' && ctx.path === '/admin/callback') return callback(ctx);
    // Any other method on these two paths would reach the gate, whose answer (log in first) would loop.
    if (ctx.path === '/admin/login' || ctx.path === '/admin/callback') {
      ctx.status = 405;
      ctx.set('Allow', 'GET');
      ctx.body = { error: { code: 'METHOD_NOT_ALLOWED', message: `${ctx.method} ${ctx.path} is not served; use GET` } };
      return;
    }
    await next();
  };
}

/**
 * POST /admin/logout ends the console session (204); mounted after the gate, so it needs the session and its
 * CSRF token like any other change, and a forged cross-site POST cannot log anyone out.
 */
export function logoutRoute({ audit, ended }: { audit: Logger; ended: EndedSessions }): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'POST' || ctx.path !== '/admin/logout') return next();
    const { email, role, sessionId } = ctx.state['operator'] as ConsoleOperator;
    // Ended where every console replica looks, so that a copy of the cookie is refused too.
    await ended.end(sessionId);
    endSession(ctx);
    audit.info('Console logout', { email, role });
    ctx.status = 204;
  };
}

function answerPage(ctx: Koa.Context, status: number, page: Parameters<typeof authPage>[0]): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.body = authPage(page);
}

function providerUnreachable(ctx: Koa.Context, err: unknown, log: Logger): void {
  log.warn('Console sign-in provider unreachable', { reason: describe(err) });
  ctx.set('Retry-After', String(RETRY_AFTER_S));
  answerPage(ctx, 503, {
    title: 'Sign-in unavailable',
    message: 'The sign-in provider cannot be reached just now. Please try again in a few seconds.',
    link: { href: '/admin/login', text: 'Try again' },
  });
}

/** Discovery failures arrive as DependencyUnavailableError; a token request that never got an answer, as fetch's. */
function isProviderOutage(err: unknown): boolean {
  if (isAppError(err)) return err.retriable;
  return err instanceof TypeError || (err instanceof DOMException && /^(TimeoutError|AbortError)$/.test(err.name));
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  return err.cause instanceof Error ? `${err.message}: ${describe(err.cause)}` : err.message;
}
