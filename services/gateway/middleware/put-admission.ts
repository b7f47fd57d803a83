import type { Middleware } from 'koa';
import { DependencyUnavailableError } from '../../../shared/errors/index.js';

/** Phones waiting beyond this many answer 503 at once: they would time out in the queue anyway. */
const MAX_WAITING = 512;

/**
 * Lets at most `maxConcurrent` puts be parsed, validated, encoded and published at once; the others wait in
 * arrival order holding only their body's bytes (6 MB for 10,000 entries), not the ten times more heap a parsed
 * and encoded put takes. Other calls (reads, profile) pass straight through.
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
