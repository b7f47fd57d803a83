/**
 * Rows a long read handles between two turns of the event loop. A page of rows is parsed and visited
 * synchronously; yielding every thousand keeps any one read from holding the gateway's only thread for more than
 * a few milliseconds, so other requests (an honest put, a health probe) are served while it runs.
 */
export const ROWS_PER_TURN = 1000;

/** Lets queued I/O callbacks run before the caller continues (setImmediate runs after them, unlike a microtask). */
export function yieldToEventLoop(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}
