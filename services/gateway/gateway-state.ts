/** What middleware and routes share about the current call (Koa's ctx.state). */
export interface GatewayState {
  /** Set as soon as the call's user is identified; printed on the END line. */
  userUuid?: string;
  /** The route template the path matched (`/timeline/getTrips/:day`), set by middleware/route-match.ts. */
  route?: string;
  /** True while the request's body is still on the socket, unread: a refusal then closes the connection. */
  bodyUnread?: boolean;
}

declare module 'koa' {
  interface Request {
    /** The parsed JSON object body, set by middleware/json-body.ts. */
    body?: unknown;
    /** The body's bytes between reading and parsing (middleware/json-body.ts). */
    rawBody?: Buffer | undefined;
  }
}
