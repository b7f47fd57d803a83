import type { IncomingMessage } from 'node:http';
import { Transform } from 'node:stream';
import type { Middleware } from 'koa';
import {
  type AppError,
  BodyTimeoutError,
  OverloadedError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../../../shared/errors/index.js';
import { createDepthScanner, tooDeepError } from '../../../shared/json/json-depth.js';
import type { GatewayState } from '../gateway-state.js';
import { RETRY_AFTER_SECONDS } from '../../../shared/http/index.js';
import type { BodyBudget } from './body-budget.js';

export interface BodyLimitOptions {
  /** The largest body a route takes and the budget its bytes count against, by route template (`ctx.state.route`). */
  boundsFor: (route: string) => { limitBytes: number; budget: BodyBudget };
  /**
   * Whether a route's body has its nesting bounded here as it arrives. The puts' bodies are bounded by
   * middleware/put-body.ts instead, in the pass that finds their entries, so their bytes are walked once.
   * @defaultValue every route
   */
  scansDepth?: (route: string) => boolean;
  /** A body silent this long is cut off; after this long it must also average `minBytesPerSecond`. */
  idleTimeoutMs: number;
  minBytesPerSecond: number;
}

function hasBody(req: IncomingMessage): boolean {
  return Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
}

const overloaded = () =>
  new OverloadedError('the gateway is holding too many request bodies; retry later', {
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS.bodyBudget) },
  });

/**
 * Bounds every request body, deciding what it can before the first byte is read: only a path that is a route has
 * its body read (an unknown path gets its 404 with the body unread), a declared length over the route's limit is a
 * 413, and a body that could not fit in the gateway-wide budget of body bytes in flight is a 503 with Retry-After.
 * The bytes then reach their reader (middleware/put-body.ts for the puts, middleware/json-body.ts for the rest)
 * only through the stream `ctx.state.openBody()` opens, which meters them as they arrive: at most the route's limit
 * (413), each chunk reserved in the budget (503: bytes are reserved as they arrive, so a client that declares 64 MB
 * and sends nothing holds nothing), nested at most MAX_JSON_DEPTH levels (400 naming the field, before any
 * parsing), and at a pace that ends (408 for a client that stops sending or trickles). The budget is given back
 * when the answer is sent. A compressed body is refused (415): its bytes would not be what the budget counts.
 */
export function limitBody(options: BodyLimitOptions): Middleware<GatewayState> {
  return async (ctx, next) => {
    if (!hasBody(ctx.req)) return next();
    ctx.state.bodyUnread = true;
    const route = ctx.state.route;
    if (route === undefined || (ctx.method !== 'POST' && ctx.method !== 'PUT')) return next();
    const encoding = ctx.get('content-encoding');
    if (encoding !== '' && encoding.toLowerCase() !== 'identity')
      throw new UnsupportedMediaTypeError(
        `Content-Encoding ${encoding.slice(0, 40)} is not accepted; send the body as is`,
      );
    const { limitBytes, budget } = options.boundsFor(route);
    const declared = Number(ctx.get('content-length') || 0);
    if (declared > limitBytes)
      throw new PayloadTooLargeError(
        `request body of ${declared} bytes exceeds the limit of ${limitBytes} bytes for ${route}`,
      );
    if (declared > budget.freeBytes) throw overloaded();
    const scansDepth = options.scansDepth?.(route) ?? true;
    let meter: ReturnType<typeof meterBody> | undefined;
    ctx.req.once('end', () => (ctx.state.bodyUnread = false));
    // Opened by the body's reader: a put waiting for admission leaves its bytes on the socket, and its pace is
    // only clocked once it is read.
    ctx.state.openBody = () =>
      (meter ??= meterBody(ctx.req, { ...options, limitBytes, budget, route, scansDepth })).stream;
    try {
      await next();
    } finally {
      meter?.stop();
    }
  };
}

interface MeterOptions {
  route: string;
  scansDepth: boolean;
  limitBytes: number;
  budget: BodyBudget;
  idleTimeoutMs: number;
  minBytesPerSecond: number;
}

/** The request's bytes through a stream that fails with the AppError of the first bound they pass. */
function meterBody(
  req: IncomingMessage,
  { route, scansDepth, limitBytes, budget, idleTimeoutMs, minBytesPerSecond }: MeterOptions,
) {
  let total = 0;
  let reserved = 0;
  const depth = scansDepth ? createDepthScanner() : null;
  const startedAt = Date.now();
  let lastByteAt = startedAt;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      total += chunk.length;
      lastByteAt = Date.now();
      if (total > limitBytes)
        return done(new PayloadTooLargeError(`request body exceeds the limit of ${limitBytes} bytes for ${route}`));
      if (!budget.tryReserve(chunk.length)) return done(overloaded());
      reserved += chunk.length;
      // Nesting is bounded on the bytes as they pass, so a too-deep body is refused before anything parses it.
      const tooDeep = depth?.push(chunk);
      if (tooDeep) return done(tooDeepError(tooDeep));
      done(null, chunk);
    },
  });
  // co-body (under @koa/bodyparser) reads the declared length and encoding from its stream's headers.
  Object.assign(stream, { headers: req.headers });

  const detach = () => {
    clearInterval(pace);
    req.off('end', detach);
    req.off('error', onError);
    req.off('close', onClose);
  };
  // Stop taking bytes: the answer closes the connection (ctx.state.bodyUnread).
  const stopReading = () => {
    detach();
    req.unpipe(stream);
    req.pause();
  };
  const fail = (err: AppError) => {
    stopReading();
    stream.destroy(err);
  };
  const onError = () => fail(new ValidationError('the request body could not be read'));
  const onClose = () => fail(new ValidationError('the client closed the connection before the body ended'));
  const pace = setInterval(
    () => {
      const now = Date.now();
      if (now - lastByteAt >= idleTimeoutMs) {
        fail(new BodyTimeoutError(`no body bytes for ${Math.round(idleTimeoutMs / 1000)} s`));
      } else if (now - startedAt >= idleTimeoutMs && total / ((now - startedAt) / 1000) < minBytesPerSecond) {
        fail(new BodyTimeoutError(`the body arrives slower than ${minBytesPerSecond} bytes/s`));
      }
    },
    Math.min(1000, idleTimeoutMs / 2),
  );
  // A bound passed in transform() fails the stream itself; the reader gets the error, and the socket is left alone.
  stream.on('error', stopReading);
  req.once('end', detach);
  req.on('error', onError);
  req.on('close', onClose);
  // A client that left while its put waited for admission: its 'close' has passed, and its bytes will never come.
  if (req.destroyed) onClose();
  else req.pipe(stream);
  return {
    stream,
    /** Gives the budget back and lets go of the request; the stream, if still open, ends without an error. */
    stop() {
      stopReading();
      budget.release(reserved);
      reserved = 0;
      if (!stream.readableEnded) stream.destroy();
    },
  };
}
