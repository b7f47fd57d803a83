import type { Middleware } from 'koa';
import { OverloadedError } from '../../../shared/errors/index.js';
import type { GatewayState } from '../gateway-state.js';
import { RETRY_AFTER_SECONDS } from '../../../shared/http/index.js';
import { isPutRoute } from './put-body.js';

/** Phones waiting beyond this many answer 503 at once: they would time out in the queue anyway. */
const MAX_WAITING = 512;

export interface PutAdmissionOptions {
  /** Puts read and processed at once, whatever their size. */
  maxConcurrent: number;
  /**
   * Body bytes of the puts read and processed at once: a put is admitted beside others only while their bytes stay
   * within this, so many small puts (a phone's usual few hundred entries) run side by side while their Kafka
   * acknowledgements are awaited, and big ones (a 64 MB backlog) one or two at a time. A put is always admitted
   * when none runs. Until its body is read a put counts by its declared length; one that declares none (a chunked
   * upload) counts as this whole bound, so it runs alone. @defaultValue Infinity
   */
  maxActiveBytes?: number;
  /** Body bytes the waiting puts may hold together; a put that would pass it is answered 503. @defaultValue Infinity */
  maxWaitingBytes?: number;
}

/**
 * Lets a bounded number and size of puts be read, parsed, validated, encoded and published at once. The others
 * wait in arrival order with their bodies still in their sockets (the phone's upload pauses under TCP's flow
 * control), so the gateway's memory follows the puts it processes, not the puts it has been sent; only a put that
 * stepped aside for a slow upload waits holding its bytes. The queue is bounded by count and by bytes. Other calls
 * (reads, profile) pass straight through.
 */
export function putAdmission({
  maxConcurrent,
  maxActiveBytes = Infinity,
  maxWaitingBytes = Infinity,
}: PutAdmissionOptions): Middleware<GatewayState> {
  const unknownLengthBytes = Number.isFinite(maxActiveBytes) ? maxActiveBytes : 0;
  let active = 0;
  let activeBytes = 0;
  let waitingBytes = 0;
  /** Puts waiting for a place; those rejoining after a slow upload come first, in the order they were read. */
  const waiting: { bytes: number; rejoining: boolean; start: () => void }[] = [];
  const fits = (bytes: number) => active === 0 || (active < maxConcurrent && activeBytes + bytes <= maxActiveBytes);
  /** Starts waiting puts, in queue order, while the first of them fits. */
  const admitWaiting = () => {
    while (waiting.length > 0 && fits(waiting[0]!.bytes)) {
      const next = waiting.shift()!;
      active += 1;
      activeBytes += next.bytes;
      next.start();
    }
  };
  const leave = (bytes: number) => {
    active -= 1;
    activeBytes -= bytes;
    admitWaiting();
  };
  /** Takes a place for `bytes`, waiting behind the puts ahead of it if none is free. */
  const enter = async (bytes: number, rejoining: boolean) => {
    // A rejoining put goes ahead of every new arrival, so only the other rejoining puts can be ahead of it.
    const ahead = rejoining ? waiting.findIndex((w) => !w.rejoining) : waiting.length;
    const at = ahead === -1 ? waiting.length : ahead;
    if (at === 0 && fits(bytes)) {
      active += 1;
      activeBytes += bytes;
      return;
    }
    // The bounds are on puts that hold nothing yet; a rejoining put's bytes are already held, and counted in the
    // body budget: refusing it now would have its phone send them all again.
    if (!rejoining && (waiting.length >= MAX_WAITING || waitingBytes + bytes > maxWaitingBytes)) {
      throw new OverloadedError('the gateway is busy with other puts; retry later', {
        headers: { 'Retry-After': String(RETRY_AFTER_SECONDS.putQueue) },
      });
    }
    waitingBytes += bytes;
    // Counted in `active` by admitWaiting when its turn comes.
    await new Promise<void>((start) => waiting.splice(at, 0, { bytes, rejoining, start }));
    waitingBytes -= bytes;
  };
  return async (ctx, next) => {
    if (!isPutRoute(ctx.state.route)) return next();
    // Nothing is held while the put waits: its bytes are still in its socket.
    let bytes = declaredBytes(ctx, unknownLengthBytes);
    await enter(bytes, false);
    let inside = true;
    ctx.state.putSlot = {
      stepAside() {
        if (!inside) return;
        inside = false;
        leave(bytes);
      },
      async rejoin(read) {
        if (inside) return;
        await enter(read, true);
        bytes = read;
        inside = true;
      },
    };
    try {
      await next();
    } finally {
      if (inside) leave(bytes);
    }
  };
}

/** The body's length as its headers declare it; a chunked upload (no length) counts as `unknownLengthBytes`. */
function declaredBytes(ctx: { get(field: string): string }, unknownLengthBytes: number): number {
  const length = ctx.get('content-length');
  if (length !== '') return Number(length);
  return ctx.get('transfer-encoding') === '' ? 0 : unknownLengthBytes;
}
