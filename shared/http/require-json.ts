import type { Context } from 'koa';
import { UnsupportedMediaTypeError } from '../errors/index.js';

/**
 * Every body the gateway and the console read is declared JSON (`application/json`, as the phone app sends it). A web page can
 * POST `text/plain`, a form or multipart to any origin without the browser asking first (no CORS preflight), but
 * not `application/json`: refusing every other type (415) means no page a participant happens to visit can put,
 * label or delete through their browser.
 */
export function requireJsonType(ctx: Pick<Context, 'is' | 'get'>): void {
  if (!ctx.is('json'))
    throw new UnsupportedMediaTypeError(
      `expected Content-Type application/json, got ${ctx.get('content-type') || 'none'}`,
    );
}
