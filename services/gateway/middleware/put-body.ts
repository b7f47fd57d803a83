import { isAscii } from 'node:buffer';
import { buffer } from 'node:stream/consumers';
import type { Middleware } from 'koa';
import { ValidationError } from '../../../shared/errors/index.js';
import { createDepthScanner, tooDeepError } from '../../../shared/json/json-depth.js';
import { MAX_ENTRIES_PER_PUT } from '../../../shared/events/index.js';
import { entryTexts, locatePutList } from '../domain/put-layout.js';
import { jsonObject } from '../domain/request-body.js';
import type { GatewayState } from '../gateway-state.js';
import { requireJsonType } from '../../../shared/http/index.js';

/** The routes that carry phone data: their bodies are read here, not by @koa/bodyparser (see README, "Puts"). */
export const PUT_ROUTES: ReadonlySet<string> = new Set(['/usercache/put', '/usercache/putone']);

export function isPutRoute(route: string | undefined): boolean {
  return route !== undefined && PUT_ROUTES.has(route);
}

/** An admitted upload still arriving after this long steps aside (middleware/put-admission.ts) until it is read. */
export const SLOW_UPLOAD_MS = 2000;

/**
 * Reads an admitted put's body, as bytes, from the stream middleware/body-limits.ts meters, into
 * `ctx.state.putBytes`. Reading comes after admission (middleware/put-admission.ts), so a put waiting for its turn
 * leaves its bytes in its socket and the gateway holds only the bodies of the puts it processes. An upload still
 * arriving after `slowUploadMs` (a phone on a slow cellular link) gives its place back while it arrives and waits
 * for one again, holding its bytes, once it is read: a slow upload never keeps others waiting.
 */
export function readPutBody({ slowUploadMs = SLOW_UPLOAD_MS } = {}): Middleware<GatewayState> {
  return async (ctx, next) => {
    if (!isPutRoute(ctx.state.route)) return next();
    const stream = ctx.state.openBody?.();
    if (!stream) {
      ctx.state.putBytes = Buffer.alloc(0);
      return next();
    }
    const slot = ctx.state.putSlot;
    const slow = slot && setTimeout(() => slot.stepAside(), slowUploadMs);
    try {
      // Gathered as the bytes arrive (each reserved in the body budget by the meter), never allocated at the
      // declared length: a client that declares 64 MB and sends nothing holds nothing.
      ctx.state.putBytes = await buffer(stream);
    } finally {
      clearTimeout(slow);
    }
    await slot?.rejoin(ctx.state.putBytes.length);
    return next();
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ValidationError(`request body is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Parses an admitted put's bytes as a JSON object. The phone app sends `application/json; charset=UTF-8`; a body
 * of another type, a body that is not JSON, or JSON that is not an object is refused with a 4xx naming why. An
 * empty body counts as `{}`.
 *
 * A `/usercache/put` body in ASCII (every phone's, unless an entry carries accented text) is parsed without its
 * entries, which are left as text in `ctx.state.putEntries` for the route to parse one at a time
 * (domain/put-layout.ts): a 10,000-entry put then never exists as one object graph, and entries are published as
 * the phone wrote them. Other bodies, and bodies laid out otherwise, are parsed whole.
 */
export function parsePutBody({ maxEntries = MAX_ENTRIES_PER_PUT } = {}): Middleware<GatewayState> {
  return async (ctx, next) => {
    const bytes = ctx.state.putBytes;
    if (bytes === undefined || !isPutRoute(ctx.state.route)) return next();
    ctx.state.putBytes = undefined;
    const ascii = isAscii(bytes);
    const raw = bytes.toString(ascii ? 'latin1' : 'utf8');
    if (raw.trim() === '') {
      ctx.request.body = {};
      return next();
    }
    requireJsonType(ctx);
    // Nesting is bounded before anything parses (shared/json/json-depth.ts): the layout is found only in a body within
    // the bound, and any other body is scanned for it here.
    const layout =
      ascii && ctx.state.route === '/usercache/put' ? locatePutList(bytes, 'phone_to_server', maxEntries) : null;
    // The body with an empty list: its parse checks everything but the entries, which the route parses.
    const skeleton = layout && jsonObject(parseJson(raw.slice(0, layout.listOpen + 1) + raw.slice(layout.listClose)));
    const list = skeleton?.['phone_to_server'];
    if (layout && Array.isArray(list) && list.length === 0) {
      ctx.request.body = skeleton;
      ctx.state.putEntries = entryTexts(raw, layout);
      return next();
    }
    // Not laid out so (or, should the layout ever disagree with the parser, not trusted): parsed whole.
    const tooDeep = createDepthScanner().push(bytes);
    if (tooDeep) throw tooDeepError(tooDeep);
    ctx.request.body = jsonObject(parseJson(raw));
    return next();
  };
}
