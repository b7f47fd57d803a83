import type Koa from 'koa';
import helmet from 'koa-helmet';
import { randomBytes } from 'node:crypto';
import { isLoopbackHost, type Config } from '../../../shared/config/index.js';
import { ConfigError } from '../../../shared/errors/index.js';
import { createRateLimits, type RateLimits } from '../../../shared/http/rate-limits.js';
import type { Logger } from '../../../shared/logger/index.js';
import { consoleCspDirectives } from './content-security-policy.js';
import { gate, requireOperator } from './gate.js';
import { LOGIN_ALLOWANCE, loginRoutes, logoutRoute } from './login-routes.js';
import { createOidcClient, isLoopbackUrl } from './oidc-client.js';
import { sessionMiddleware } from './session.js';
import { currentOperator } from './current-operator.js';
import { createEndedSessionsInMemory, type EndedSessions } from './ended-sessions.js';

export interface ConsoleAuth {
  /**
   * Mount on the console's Koa app, in this order, before any /admin route: security headers, the signed session
   * cookie, GET /admin/login and GET /admin/callback, the gate (session, CSRF, 404 outside /admin), then
   * POST /admin/logout. Routes after it find the logged-in person in `ctx.state.operator`.
   */
  middleware: Koa.Middleware[];
  /** 403 JSON unless ctx.state.operator.role === 'operator'. */
  requireOperator: Koa.Middleware;
}

/**
 * The console's login (OpenID Connect, any provider; the dev provider in development) and its security layer.
 * `audit` receives one line per login, refusal and logout (e-mail and role only); `log`, operational trouble
 * such as an unreachable provider (defaults to `audit`).
 */
export function createConsoleAuth({
  config,
  audit,
  log = audit,
  ended = createEndedSessionsInMemory(),
  limits = createRateLimits({ 'console-login': LOGIN_ALLOWANCE }),
}: {
  config: Config['console'];
  audit: Logger;
  log?: Logger;
  /** Sessions ended by a logout; in memory by default (one process, forgotten at restart). */
  ended?: EndedSessions;
  /** How many logins an address may start: LOGIN_ALLOWANCE a minute by default. */
  limits?: RateLimits<'console-login'>;
}): ConsoleAuth {
  refuseDevelopmentSecrets(config);
  const sessionKeys = config.sessionKeys.length > 0 ? config.sessionKeys : [randomSessionKey(log)];
  const https = new URL(config.publicUrl).protocol === 'https:';
  const oidc = createOidcClient(config);
  const current = currentOperator(config.oidc, ended);
  return {
    middleware: [
      helmet({
        contentSecurityPolicy: {
          useDefaults: false,
          directives: consoleCspDirectives({ tileUrl: config.tileUrl, https }),
        },
        // Same as the CSP's frame-ancestors 'none', for browsers that predate it: nobody frames the console.
        xFrameOptions: { action: 'deny' },
        // Browsers ignore HSTS over http; sending it from http://127.0.0.1 would only confuse whoever reads headers.
        strictTransportSecurity: https ? { maxAge: 180 * 24 * 3600 } : false,
        // Tile servers (OpenStreetMap's policy requires it) want to know which site uses them: send the origin,
        // never the page's path and query, which name participants and days.
        referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
      }),
      sessionMiddleware({ sessionKeys, secure: https }),
      loginRoutes({ oidc, rules: config.oidc, current, audit, log, limits }),
      gate(current),
      logoutRoute({ audit, ended }),
    ],
    requireOperator,
  };
}

const DEVELOPMENT_SESSION_KEY = 'itinera-development-only-session-key';
const DEVELOPMENT_CLIENT_SECRET = 'itinera-development-only-secret';

/**
 * A signing key nobody else knows, for a console given none: shipping a key in the repository would let anyone who
 * reads it forge an operator's cookie. The price is that sessions do not survive a restart, which the log says.
 */
function randomSessionKey(log: Logger): string {
  log.warn('No console.session_keys (CONSOLE_SESSION_KEYS): signing sessions with a random key; they end on restart');
  return randomBytes(32).toString('base64url');
}

/**
 * The development session key signs cookies anyone could forge, the development client secret is public, and the
 * development provider logs anyone in: each is refused at start-up unless the console listens only on this machine's
 * loopback address and both its public URL and its issuer are loopback too (a console on 0.0.0.0 is reachable from
 * the network whatever URL it advertises).
 */
export function refuseDevelopmentSecrets(config: Config['console']): void {
  const local = isLoopbackHost(config.host) && isLoopbackUrl(config.publicUrl) && isLoopbackUrl(config.oidc.issuer);
  if (local) return;
  if (config.sessionKeys.includes(DEVELOPMENT_SESSION_KEY))
    throw new ConfigError(
      'console.session_keys still holds the development key, whose cookies anyone can forge: set a long random secret (CONSOLE_SESSION_KEYS)',
    );
  if (config.oidc.clientSecret === DEVELOPMENT_CLIENT_SECRET)
    throw new ConfigError('console.oidc.client_secret is the development secret: set your provider’s client secret');
  if (config.oidc.devProvider)
    throw new ConfigError(
      'console.oidc.dev_provider logs anyone in: it runs only with a loopback host, issuer and public_url',
    );
}
