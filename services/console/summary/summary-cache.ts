import { LRUCache } from 'lru-cache';
import pLimit from 'p-limit';
import type { z } from 'zod';
import type { Summary } from '../api/schemas.js';
import type { UserFilter } from '../scope/participant-scope.js';

/** A summary is reused this long: it reads every trip row of its days, and it changes slowly. */
const SUMMARY_TTL_MS = 60_000;

type Answer = z.infer<typeof Summary>;

/**
 * The program summary behind a cache per scope and number of days, one computation at a time over all keys: a page
 * opened by several operators, or reloaded, or asked for every period at once, costs one scan at a time, each a
 * minute old at most. `scope` names whose figures they are (the cache key) and `keep` whose rows count.
 */
export function createSummaryCache(compute: (days: number, keep: UserFilter) => Promise<Answer>) {
  const oneAtATime = pLimit(1);
  const cache = new LRUCache<string, Answer, { days: number; keep: UserFilter }>({
    max: 64,
    ttl: SUMMARY_TTL_MS,
    fetchMethod: (_key, _stale, { context }) => oneAtATime(() => compute(context.days, context.keep)),
  });
  return async (days: number, scope: string, keep: UserFilter) =>
    (await cache.fetch(`${scope}|${days}`, { context: { days, keep } }))!;
}
