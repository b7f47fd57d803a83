import type { Middleware } from 'koa';
import { OverloadedError } from '../../../shared/errors/index.js';
import type { GatewayState } from '../gateway-state.js';
import { RETRY_AFTER_SECONDS } from '../retry-after.js';
import { isPutRoute } from './put-body.js';

/** Phones waiting beyond this many answer 503 at once: they would time out in the queue anyway. */
const MAX_WAITING = 512;

export interface PutAdmissionOptions {
  maxConcurrent: number;
  /** Body bytes the waiting puts may hold together; a put that would pass it is answered 503. @defaultValue Infinity */
  maxWaitingBytes?: number;
}

/**
 * Lets at most `maxConcurrent` puts be parsed, validated, encoded and published at once; the others wait in
 * arrival order holding only their body's bytes (6 MB for 10,000 entries), not the ten times more heap a parsed
 * and encoded put takes. The queue is bounded by count and by bytes. Other calls (reads, profile) pass straight
 * through.
 */
export function putAdmission({
  maxConcurrent,
  maxWaitingBytes = Infinity,
}: PutAdmissionOptions): Middleware<GatewayState> {
  let active = 0;
  let waitingBytes = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else active -= 1;
  };
  return async (ctx, next) => {
    if (!isPutRoute(ctx.state.route)) return next();
    if (active >= maxConcurrent) {
      const bytes = ctx.state.putBytes?.length ?? 0;
      if (waiting.length >= MAX_WAITING || waitingBytes + bytes > maxWaitingBytes) {
        throw new OverloadedError('the gateway is busy with other puts; retry later', {
          headers: { 'Retry-After': String(RETRY_AFTER_SECONDS.putQueue) },
        });
      }
      waitingBytes += bytes;
      // The slot is handed over by release(): `active` stays counted for the waiter.
      await new Promise<void>((resolve) => waiting.push(resolve));
      waitingBytes -= bytes;
    } else {
      active += 1;
    }
    try {
      await next();
    } finally {
      release();
    }
  };
}
