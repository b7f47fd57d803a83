import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';
import {
  BodyTimeoutError,
  OverloadedError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../../../shared/errors/index.js';
import { MAX_JSON_DEPTH, tooDeepAt, tooDeepPath } from '../domain/json-depth.js';
import type { GatewayState } from '../gateway-state.js';
import { RETRY_AFTER_SECONDS } from '../retry-after.js';
import type { BodyBudget } from './body-budget.js';

export interface ReadBodyOptions {
  /** The largest body a route takes and the budget its bytes count against, by route template (`ctx.state.route`). */
  boundsFor: (route: string) => { limitBytes: number; budget: BodyBudget };
  /** A body silent this long is cut off; after this long it must also average `minBytesPerSecond`. */
  idleTimeoutMs: number;
  minBytesPerSecond: number;
}

function hasBody(req: IncomingMessage): boolean {
  return Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
}

/**
 * Reads the request body's bytes into `ctx.request.rawBody`, within bounds decided before the first byte is read:
 * only for a path that is a route (an unknown path gets its 404 with the body unread), at most the route's limit
 * (413), within the gateway-wide budget of body bytes in flight (503 with Retry-After), and at a pace that ends
 * (408 for a client that stops sending or trickles). Reading comes before admission (middleware/put-admission.ts)
 * so a phone uploading slowly over a cellular link never holds a processing slot while its bytes trickle in.
 */
export function readBody(options: ReadBodyOptions): Middleware<GatewayState> {
  return async (ctx, next) => {
    const route = ctx.state.route;
    const takesBody = route !== undefined && (ctx.method === 'POST' || ctx.method === 'PUT');
    if (!hasBody(ctx.req)) {
      // An empty body parses as {} (some calls send nothing but the method).
      if (takesBody) ctx.request.rawBody = Buffer.alloc(0);
      return next();
    }
    if (!takesBody) {
      ctx.state.bodyUnread = true;
      return next();
    }
    ctx.state.bodyUnread = true;
    const { limitBytes: limit, budget } = options.boundsFor(route);
    const declared = Number(ctx.get('content-length') || 0);
    if (declared > limit)
      throw new PayloadTooLargeError(
        `request body of ${declared} bytes exceeds the limit of ${limit} bytes for ${route}`,
      );
    const overloaded = () =>
      new OverloadedError('the gateway is holding too many request bodies; retry later', {
        headers: { 'Retry-After': String(RETRY_AFTER_SECONDS.bodyBudget) },
      });
    // A body that could not fit is refused before a byte is read. Bytes are reserved only as they arrive, though:
    // a client that declares 64 MB and sends nothing holds nothing, so idle connections cannot lock phones out.
    if (declared > budget.freeBytes) throw overloaded();
    let reserved = 0;
    const reserve = (bytes: number) => {
      if (!budget.tryReserve(bytes)) throw overloaded();
      reserved += bytes;
    };
    try {
      const bytes = await readWithin(ctx.req, {
        limit,
        idleTimeoutMs: options.idleTimeoutMs,
        minBytesPerSecond: options.minBytesPerSecond,
        onChunk: (total) => reserve(total - reserved),
      });
      ctx.state.bodyUnread = false;
      ctx.request.rawBody = bytes;
      await next();
    } finally {
      budget.release(reserved);
    }
  };
}

interface ReadWithin {
  limit: number;
  idleTimeoutMs: number;
  minBytesPerSecond: number;
  onChunk: (total: number) => void;
}

function readWithin(req: IncomingMessage, { limit, idleTimeoutMs, minBytesPerSecond, onChunk }: ReadWithin) {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const startedAt = Date.now();
    let lastByteAt = startedAt;
    const finish = (err: Error | null) => {
      clearInterval(pace);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      if (err) {
        // Stop taking bytes: the answer closes the connection (ctx.state.bodyUnread).
        req.pause();
        reject(err);
      } else resolve(Buffer.concat(chunks, total));
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      lastByteAt = Date.now();
      if (total > limit) return finish(new PayloadTooLargeError(`request body exceeds the limit of ${limit} bytes`));
      try {
        onChunk(total);
      } catch (err) {
        return finish(err as Error);
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish(null);
    const onError = (err: Error) => finish(new ValidationError(`the request body could not be read: ${err.message}`));
    const onClose = () => finish(new ValidationError('the client closed the connection before the body ended'));
    const pace = setInterval(
      () => {
        const now = Date.now();
        if (now - lastByteAt >= idleTimeoutMs) {
          finish(new BodyTimeoutError(`no body bytes for ${Math.round(idleTimeoutMs / 1000)} s`));
        } else if (now - startedAt >= idleTimeoutMs && total / ((now - startedAt) / 1000) < minBytesPerSecond) {
          finish(new BodyTimeoutError(`the body arrives slower than ${minBytesPerSecond} bytes/s`));
        }
      },
      Math.min(1000, idleTimeoutMs / 2),
    );
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/**
 * Parses the body read by readBody as a JSON object. The phone app sends `application/json; charset=UTF-8`; a body
 * of another type, a body that is not JSON, JSON nested deeper than MAX_JSON_DEPTH, or JSON that is not an object
 * is refused with a 4xx naming why. An empty body counts as `{}` (some calls send nothing but the method).
 */
export function parseJsonBody(): Middleware<GatewayState> {
  return async (ctx, next) => {
    const bytes = ctx.request.rawBody;
    if (bytes === undefined) return next();
    ctx.request.rawBody = undefined;
    const raw = bytes.toString('utf8');
    if (raw.trim() === '') {
      ctx.request.body = {};
      return next();
    }
    if (!ctx.is('json') && !ctx.is('text/plain')) {
      throw new UnsupportedMediaTypeError(
        `expected Content-Type application/json, got ${ctx.get('content-type') || 'none'}`,
      );
    }
    const deepAt = tooDeepAt(bytes);
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch (err) {
      if (deepAt >= 0) body = undefined;
      else
        throw new ValidationError(
          `request body is not valid JSON: ${err instanceof Error ? err.message : String(err)}`,
        );
    }
    if (deepAt >= 0) {
      const field = (body !== undefined && tooDeepPath(body)) || `byte ${deepAt}`;
      throw new ValidationError(`JSON nests deeper than ${MAX_JSON_DEPTH} levels at ${field}`, {
        details: { field, max_depth: MAX_JSON_DEPTH },
      });
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      throw new ValidationError('request body must be a JSON object');
    ctx.request.body = body;
    return next();
  };
}
