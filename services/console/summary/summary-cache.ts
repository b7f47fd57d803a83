import { LRUCache } from 'lru-cache';
import pLimit from 'p-limit';
import type { z } from 'zod';
import type { Summary } from '../api/schemas.js';

/** A summary is reused this long: it reads every trip row of its days, and it changes slowly. */
const SUMMARY_TTL_MS = 60_000;

/**
 * The program summary behind a cache per number of days, one computation at a time over all keys: a page opened by
 * several operators, or reloaded, or asked for every period at once, costs one scan at a time, each a minute old at
 * most.
 */
export function createSummaryCache(compute: (days: number) => Promise<z.infer<typeof Summary>>) {
  const oneAtATime = pLimit(1);
  const cache = new LRUCache<number, z.infer<typeof Summary>>({
    max: 16,
    ttl: SUMMARY_TTL_MS,
    fetchMethod: (days) => oneAtATime(() => compute(days)),
  });
  return async (days: number) => (await cache.fetch(days))!;
}
