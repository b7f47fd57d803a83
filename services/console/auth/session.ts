import { randomBytes } from 'node:crypto';
import type Koa from 'koa';
import createSession from 'koa-session';
import type { ProgramScope } from '../scope/program-scope.js';

export type ConsoleRole = 'reader' | 'operator';

/** Who is logged in, as the gate hands it to the routes in `ctx.state.operator`. */
export interface ConsoleOperator {
  email: string;
  role: ConsoleRole;
  /**
   * The programs this person works in, a program's admin's (see roles.ts); absent: the whole deployment. A cookie
   * signed before programs had admins has none, and was only ever given to a whole-deployment reader or operator.
   */
  programs?: ProgramScope;
  /** Every state-changing request must echo it in the `x-csrf-token` header. */
  csrfToken: string;
  /** The session's id, which a logout ends. */
  sessionId: string;
}

/** What /admin/login leaves for /admin/callback: the checks of the one login in progress. */
export interface PendingLogin {
  state: string;
  nonce: string;
  codeVerifier: string;
  /** Where to go once logged in: a path under /admin/, already checked. */
  next: string;
}

/**
 * What the provider said of the person at login, kept in the session so that the role is worked out again from the
 * console's configuration at every request: someone removed from the lists loses their access at the console's next
 * start, whatever their cookie says.
 */
export interface SignedInClaims {
  email: string;
  email_verified?: boolean;
  /** The group claim's value, under the claim's own name. */
  [claim: string]: unknown;
}

/** A logged-in session as the cookie holds it. */
export interface SignedIn {
  /** Names the session, for a logout to end it everywhere (ended-sessions.ts). */
  sessionId: string;
  claims: SignedInClaims;
  csrfToken: string;
}

/** The session cookie's content: a login in progress, or a logged-in person. */
type SessionData = Partial<SignedIn> & { pending?: PendingLogin; maxAge?: number };

const SESSION_COOKIE = 'itinera.console';
const SESSION_MAX_AGE_MS = 8 * 60 * 60 * 1000;
/** A login started and never finished should not leave its checks lying around for 8 hours. */
const PENDING_LOGIN_MAX_AGE_MS = 10 * 60 * 1000;

/**
 * koa-session, with the whole session in a signed cookie (no store to run): httpOnly, SameSite=Lax (the
 * provider's redirect back to /admin/callback is a cross-site top-level GET, which Strict would strip the cookie
 * from), Secure when the console is served over https, and an absolute 8-hour lifetime that requests do not
 * extend (the expiry is inside the signed value, so a copied cookie dies too).
 *
 * koa-session needs the Koa app itself (it signs with `app.keys` and adds `ctx.session` to `app.context`), which
 * this module's callers do not pass: it is bound to whichever app the middleware first runs in, and that app's
 * keys become the configured session keys, newest first (so prepending a key rotates without logging anyone out).
 */
export function sessionMiddleware({
  sessionKeys,
  secure,
}: {
  sessionKeys: readonly string[];
  secure: boolean;
}): Koa.Middleware {
  const boundApps = new WeakMap<Koa, Koa.Middleware>();
  return (ctx, next) => {
    let session = boundApps.get(ctx.app);
    if (session === undefined) {
      ctx.app.keys = [...sessionKeys];
      session = createSession(
        {
          key: SESSION_COOKIE,
          maxAge: SESSION_MAX_AGE_MS,
          httpOnly: true,
          signed: true,
          sameSite: 'lax',
          secure,
          rolling: false,
          renew: false,
        },
        ctx.app,
      );
      boundApps.set(ctx.app, session);
    }
    return session(ctx, next);
  };
}

/** koa-session's `ctx.session`, which its types leave off Koa's context. */
function sessionOf(ctx: Koa.Context): SessionData | null {
  return (ctx as unknown as { session: SessionData | null }).session;
}

function replaceSession(ctx: Koa.Context, data: SessionData | null): void {
  (ctx as unknown as { session: SessionData | null }).session = data;
}

/** The session's sign-in, if someone is signed in (a cookie from before sessions held claims counts as none). */
export function signedIn(ctx: Koa.Context): SignedIn | undefined {
  const { sessionId, claims, csrfToken } = sessionOf(ctx) ?? {};
  if (sessionId === undefined || claims === undefined || csrfToken === undefined) return undefined;
  return { sessionId, claims, csrfToken };
}

export function pendingLogin(ctx: Koa.Context): PendingLogin | undefined {
  return sessionOf(ctx)?.pending;
}

/** Starting a login replaces whatever session there was, and lives only minutes. */
export function startPendingLogin(ctx: Koa.Context, pending: PendingLogin): void {
  replaceSession(ctx, { pending });
  const session = sessionOf(ctx);
  if (session) session.maxAge = PENDING_LOGIN_MAX_AGE_MS;
}

/** A fresh session (a new cookie value, full lifetime, new id and CSRF token) for whoever just logged in. */
export function startSignedInSession(ctx: Koa.Context, claims: SignedInClaims): SignedIn {
  const operator = {
    sessionId: randomBytes(18).toString('base64url'),
    claims,
    csrfToken: randomBytes(32).toString('base64url'),
  };
  replaceSession(ctx, operator);
  // koa-session carries the pending login's short maxAge over to the session that replaces it: set it back.
  const session = sessionOf(ctx);
  if (session) session.maxAge = SESSION_MAX_AGE_MS;
  return operator;
}

/** Clears the cookie. */
export function endSession(ctx: Koa.Context): void {
  replaceSession(ctx, null);
}
