import type { Middleware } from 'koa';
import { DependencyUnavailableError } from '../../../shared/errors/index.js';

/** Phones waiting beyond this many answer 503 at once: they would time out in the queue anyway. */
const MAX_WAITING = 512;

/**
 * Lets at most `maxConcurrent` puts be read, parsed and published at once; the others wait in arrival order with
 * their bodies still unread in the socket, so a burst of phones costs kernel buffers, not heap. Other calls
 * (reads, profile) pass straight through.
 */
export function putAdmission({ maxConcurrent }: { maxConcurrent: number }): Middleware {
  let active = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else active -= 1;
  };
  return async (ctx, next) => {
    if (!/^\/usercache\/put(one)?$/.test(ctx.path)) return next();
    if (active >= maxConcurrent) {
      if (waiting.length >= MAX_WAITING) throw new DependencyUnavailableError('the gateway is busy with other puts');
      // The slot is handed over by release(): `active` stays counted for the waiter.
      await new Promise<void>((resolve) => waiting.push(resolve));
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
