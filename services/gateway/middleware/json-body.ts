import type {} from '../gateway-state.js';
import type { Middleware } from 'koa';
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../../../shared/errors/index.js';

/**
 * Reads the request body's bytes, up to `limitBytes` (413 beyond), into `ctx.request.rawBody`. Reading comes
 * before admission (middleware/put-admission.ts) so a phone uploading slowly over a cellular link never holds a
 * processing slot while its bytes trickle in.
 */
export function readBody({ limitBytes }: { limitBytes: number }): Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'POST' && ctx.method !== 'PUT') return next();
    const declared = Number(ctx.get('content-length') || 0);
    if (declared > limitBytes)
      throw new PayloadTooLargeError(`request body of ${declared} bytes exceeds the limit of ${limitBytes} bytes`);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of ctx.req) {
      size += (chunk as Buffer).length;
      if (size > limitBytes) throw new PayloadTooLargeError(`request body exceeds the limit of ${limitBytes} bytes`);
      chunks.push(chunk as Buffer);
    }
    ctx.request.rawBody = Buffer.concat(chunks);
    return next();
  };
}

/**
 * Parses the body read by readBody as a JSON object. The phone app sends `application/json; charset=UTF-8`; a body
 * of another type, a body that is not JSON, or JSON that is not an object is refused with a 4xx naming why. An
 * empty body counts as `{}` (some calls send nothing but the method).
 */
export function parseJsonBody(): Middleware {
  return async (ctx, next) => {
    const bytes = ctx.request.rawBody;
    if (bytes === undefined) return next();
    const raw = bytes.toString('utf8');
    ctx.request.rawBody = undefined;
    if (raw.trim() === '') {
      ctx.request.body = {};
      return next();
    }
    if (!ctx.is('json') && !ctx.is('text/plain')) {
      throw new UnsupportedMediaTypeError(
        `expected Content-Type application/json, got ${ctx.get('content-type') || 'none'}`,
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch (err) {
      throw new ValidationError(`request body is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      throw new ValidationError('request body must be a JSON object');
    ctx.request.body = body;
    return next();
  };
}
