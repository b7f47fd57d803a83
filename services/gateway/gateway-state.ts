/** What middleware and routes share about the current call (Koa's ctx.state). */
export interface GatewayState {
  /** Set as soon as the call's user is identified; printed on the END line. */
  userUuid?: string;
}

declare module 'koa' {
  interface Request {
    /** The parsed JSON object body, set by middleware/json-body.ts. */
    body?: unknown;
    /** The body's bytes between reading and parsing (middleware/json-body.ts). */
    rawBody?: Buffer | undefined;
  }
}
