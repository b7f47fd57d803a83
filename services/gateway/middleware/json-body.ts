import { bodyParser } from '@koa/bodyparser';
import type { Context, Middleware } from 'koa';
import {
  isAppError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../../../shared/errors/index.js';
import { jsonObject } from '../domain/request-body.js';
import type { GatewayState } from '../gateway-state.js';
import { isPutRoute } from './put-body.js';
import { requireJsonType } from './require-json.js';

export interface JsonBodyOptions {
  /** The largest body a route takes, by route template: the parser's `jsonLimit` for it. */
  limitFor: (route: string) => number;
}

/**
 * Parses the body of every call but the puts (middleware/put-body.ts) as a JSON object, with @koa/bodyparser, the
 * design's parser, under the route's limit. It reads the bytes middleware/body-limits.ts meters, so the byte
 * budget and the pace timeouts hold for it as for the puts. The phone app sends `application/json;
 * charset=UTF-8`; a body of another type is a 415, one that is not JSON, nests deeper than MAX_JSON_DEPTH or is
 * not an object a 400 naming why. A call without a body gets `{}` (some send nothing but the method).
 */
export function parseJsonBody({ limitFor }: JsonBodyOptions): Middleware<GatewayState> {
  const parsers = new Map<number, ReturnType<typeof bodyParser>>();
  const parserFor = (limit: number) => {
    let parser = parsers.get(limit);
    if (!parser) {
      parser = bodyParser({
        enableTypes: ['json'],
        // The type was checked below (requireJsonType); whatever reaches the parser is JSON.
        detectJSON: () => true,
        jsonLimit: limit,
        onError: (err) => {
          throw asAppError(err);
        },
      });
      parsers.set(limit, parser);
    }
    return parser;
  };
  return async (ctx, next) => {
    const route = ctx.state.route;
    if (route === undefined || isPutRoute(route) || (ctx.method !== 'POST' && ctx.method !== 'PUT')) return next();
    const stream = ctx.state.bodyStream;
    if (!stream) {
      ctx.request.body = {};
      return next();
    }
    requireJsonType(ctx);
    // The parser (co-body under it) reads `ctx.req`: it is given a view of the context whose `req` is the metered
    // stream, so every byte it reads has passed the route's bounds. Everything else it reads and sets (the
    // request, `ctx.request.body`) is the context's own.
    const view = Object.create(ctx, { req: { value: stream } }) as Context;
    await parserFor(limitFor(route))(view, async () => {
      // Nesting was bounded as the bytes arrived (middleware/body-limits.ts).
      ctx.request.body = jsonObject(ctx.request.body);
      await next();
    });
  };
}

/**
 * The parser's errors as AppErrors: by raw-body's documented `type` codes and the JSON parser's SyntaxError, never
 * by message. A bound of body-limits.ts comes through as the AppError it is; anything else is a bug (500).
 */
function asAppError(err: unknown): unknown {
  if (isAppError(err)) return err;
  if (err instanceof SyntaxError) return new ValidationError(`request body is not valid JSON: ${err.message}`);
  switch ((err as { type?: unknown }).type) {
    case 'entity.too.large':
      return new PayloadTooLargeError('request body exceeds the limit of its route', { cause: err });
    case 'request.size.invalid':
      return new ValidationError('the request body is not as long as its Content-Length says', { cause: err });
    case 'request.aborted':
      return new ValidationError('the client closed the connection before the body ended', { cause: err });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new UnsupportedMediaTypeError('the request body has an encoding or charset the gateway cannot read', {
        cause: err,
      });
    default:
      return err;
  }
}
