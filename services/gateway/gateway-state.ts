import type { Readable } from 'node:stream';
import type { BodyState } from '../../shared/http/index.js';
import type { PutEntryTexts } from './domain/put-layout.js';
// Declares `ctx.request.body` (the parsed JSON object), which @koa/bodyparser sets on every route but the puts;
// middleware/put-body.ts sets it on those.
import type {} from '@koa/bodyparser';

/**
 * What middleware and routes share about the current call (Koa's ctx.state). `bodyUnread` (BodyState): true while
 * the request's body is still on the socket, unread, so that a refusal drains it or closes the connection.
 */
export interface GatewayState extends BodyState {
  /** Set as soon as the call's user is identified; printed on the END line. */
  userUuid?: string;
  /** The route template the path matched (`/timeline/getTrips/:day`), set by middleware/route-match.ts. */
  route?: string;
  /** The request's body bytes as they arrive within the route's bounds (middleware/body-limits.ts). */
  bodyStream?: Readable;
  /** A put's body bytes, read before admission and parsed after it (middleware/put-body.ts). */
  putBytes?: Buffer;
  /** A put's entries, left as text for the route to parse one at a time (middleware/put-body.ts). */
  putEntries?: PutEntryTexts;
}
