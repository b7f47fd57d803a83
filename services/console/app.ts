import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import type { Config } from '../../shared/config/index.js';
import { bodyParserError, errorHandler } from '../../shared/http/index.js';
import { consoleOpenApi } from './api/openapi.js';
import { consoleRouter } from './api/router.js';
import type { ConsoleRoute } from './api/route-table.js';
import type { ConsoleAuth } from './auth/index.js';
import { serveConsoleFiles } from './web-files.js';

export interface ConsoleDeps {
  config: Config['console'];
  auth: ConsoleAuth;
  routes: readonly ConsoleRoute[];
  /** Where exception stacks go. @defaultValue process.stdout */
  stdout?: NodeJS.WritableStream;
}

/** Bodies the console accepts: a selection of 10,000 dead letters is about 1.5 MB. */
const BODY_LIMIT = '2mb';

/**
 * The operators' console as a Koa app, not yet listening. A request passes: the error handler (shared with the
 * gateway: one place maps errors to statuses), the auth layer (security headers, session, login routes, the gate that answers
 * 401/302 without a session and checks the CSRF token, logout), then the OpenAPI document, the JSON API and the
 * pages. Nothing after the gate runs without a session.
 */
export function createConsoleApp(deps: ConsoleDeps): Koa {
  const app = new Koa();
  // Behind the reverse proxy that terminates TLS (deploy/reverse-proxy), X-Forwarded-Proto says https.
  app.proxy = new URL(deps.config.publicUrl).protocol === 'https:';
  // The client's address (the login limit counts by it) is the one the proxy saw, the last X-Forwarded-For entry:
  // a header the client sends of its own cannot name another address.
  app.maxIpsCount = 1;
  const openapi = consoleOpenApi(deps.routes, '1');
  app.use(errorHandler({ stdout: deps.stdout ?? process.stdout }));
  for (const m of deps.auth.middleware) app.use(m);
  // Bodies of other types are left unread: the router answers them 415. Parse failures are 400 and 413, as at the
  // gateway, never a 500.
  app.use(
    bodyParser({
      enableTypes: ['json'],
      jsonLimit: BODY_LIMIT,
      onError: (err) => {
        throw bodyParserError(err);
      },
    }),
  );
  app.use(async (ctx, next) => {
    if (ctx.method !== 'GET' || ctx.path !== '/admin/openapi.json') return next();
    ctx.body = openapi;
  });
  app.use(consoleRouter(deps.routes).routes());
  app.use(serveConsoleFiles());
  return app;
}
