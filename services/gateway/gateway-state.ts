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
  /**
   * Opens the request's body: its bytes as they arrive within the route's bounds (middleware/body-limits.ts). Until
   * it is called the bytes stay on the socket, so a put waiting for admission holds none of them.
   */
  openBody?: () => Readable;
  /** A put's place among those processed at once (middleware/put-admission.ts). */
  putSlot?: PutSlot;
  /** A put's body bytes, read once the put is admitted and parsed right after (middleware/put-body.ts). */
  putBytes?: Buffer;
  /** A put's entries, left as text for the route to parse one at a time (middleware/put-body.ts). */
  putEntries?: PutEntryTexts;
}

/**
 * A put's place among those read and processed at once (`ctx.state.putSlot`, middleware/put-admission.ts). A put
 * whose upload is slow steps aside while its bytes trickle in, so it holds no place that others could use, and
 * rejoins ahead of new arrivals once its body is read.
 */
export interface PutSlot {
  stepAside(): void;
  /** Waits for a place again, now counting the body's real length; never refused for the queue's length. */
  rejoin(bytes: number): Promise<void>;
}
