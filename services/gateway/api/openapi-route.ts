import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Router from '@koa/router';
import { repoRoot } from '../../../shared/config/repo-root.js';
import type { GatewayState } from '../gateway-state.js';
import { phoneOpenApi } from './openapi.js';
import { PHONE_ROUTES } from './phone-routes.js';

/** The document as served: its text and an ETag of it, made at the first request and kept (it changes with a deploy). */
interface Served {
  text: string;
  etag: string;
}

let served: Served | undefined;

function document(): Served {
  if (!served) {
    const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    const text = JSON.stringify(phoneOpenApi(PHONE_ROUTES, version));
    served = { text, etag: `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"` };
  }
  return served;
}

/**
 * `GET /openapi.json`: the phone API's OpenAPI document, public and cacheable as a program's configuration is (an
 * ETag, a short max-age), and readable from any origin so that an API browser hosted elsewhere can load it.
 */
export function openApiRoutes(): Router<GatewayState> {
  const router = new Router<GatewayState>();
  router.get('/openapi.json', (ctx) => {
    const { text, etag } = document();
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.etag = etag;
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.type = 'application/json';
    ctx.body = text;
  });
  return router;
}
