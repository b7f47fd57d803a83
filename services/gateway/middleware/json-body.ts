import { bodyParser } from '@koa/bodyparser';
import type { Context, Middleware } from 'koa';
import { jsonObject } from '../domain/request-body.js';
import type { GatewayState } from '../gateway-state.js';
import { isPutRoute } from './put-body.js';
import { bodyParserError, requireJsonType } from '../../../shared/http/index.js';

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
          throw bodyParserError(err);
        },
      });
      parsers.set(limit, parser);
    }
    return parser;
  };
  return async (ctx, next) => {
    const route = ctx.state.route;
    if (route === undefined || isPutRoute(route) || (ctx.method !== 'POST' && ctx.method !== 'PUT')) return next();
    const stream = ctx.state.openBody?.();
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
