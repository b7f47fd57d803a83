import type { Middleware } from 'koa';
import { OverloadedError } from '../../../shared/errors/index.js';
import type { GatewayState } from '../gateway-state.js';
import { RETRY_AFTER_SECONDS } from '../../../shared/http/index.js';
import { isPutRoute } from './put-body.js';

/** Phones waiting beyond this many answer 503 at once: they would time out in the queue anyway. */
const MAX_WAITING = 512;

export interface PutAdmissionOptions {
  /** Puts processed at once, whatever their size. */
  maxConcurrent: number;
  /**
   * Body bytes of the puts processed at once: a put is admitted beside others only while their bytes stay within
   * this, so many small puts (a phone's usual few hundred entries) run side by side while their Kafka
   * acknowledgements are awaited, and big ones (a 64 MB backlog) one or two at a time. A put is always admitted
   * when none runs. @defaultValue Infinity
   */
  maxActiveBytes?: number;
  /** Body bytes the waiting puts may hold together; a put that would pass it is answered 503. @defaultValue Infinity */
  maxWaitingBytes?: number;
}

/**
 * Lets a bounded number and size of puts be parsed, validated, encoded and published at once; the others wait in
 * arrival order holding only their body's bytes (6 MB for 10,000 entries), not the ten times more heap a parsed
 * and encoded put takes. The queue is bounded by count and by bytes. Other calls (reads, profile) pass straight
 * through.
 */
export function putAdmission({
  maxConcurrent,
  maxActiveBytes = Infinity,
  maxWaitingBytes = Infinity,
}: PutAdmissionOptions): Middleware<GatewayState> {
  let active = 0;
  let activeBytes = 0;
  let waitingBytes = 0;
  const waiting: { bytes: number; start: () => void }[] = [];
  const fits = (bytes: number) => active === 0 || (active < maxConcurrent && activeBytes + bytes <= maxActiveBytes);
  /** Starts waiting puts, in arrival order, while the first of them fits. */
  const admitWaiting = () => {
    while (waiting.length > 0 && fits(waiting[0]!.bytes)) {
      const next = waiting.shift()!;
      active += 1;
      activeBytes += next.bytes;
      next.start();
    }
  };
  return async (ctx, next) => {
    if (!isPutRoute(ctx.state.route)) return next();
    const bytes = ctx.state.putBytes?.length ?? 0;
    if (waiting.length > 0 || !fits(bytes)) {
      if (waiting.length >= MAX_WAITING || waitingBytes + bytes > maxWaitingBytes) {
        throw new OverloadedError('the gateway is busy with other puts; retry later', {
          headers: { 'Retry-After': String(RETRY_AFTER_SECONDS.putQueue) },
        });
      }
      waitingBytes += bytes;
      // Counted in `active` by admitWaiting when its turn comes.
      await new Promise<void>((start) => waiting.push({ bytes, start }));
      waitingBytes -= bytes;
    } else {
      active += 1;
      activeBytes += bytes;
    }
    try {
      await next();
    } finally {
      active -= 1;
      activeBytes -= bytes;
      admitWaiting();
    }
  };
}
