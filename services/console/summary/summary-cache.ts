import { LRUCache } from 'lru-cache';
import type { z } from 'zod';
import type { Summary } from '../api/schemas.js';

/** A summary is reused this long: it reads every trip row of its days, and it changes slowly. */
const SUMMARY_TTL_MS = 60_000;

/**
 * The program summary behind a cache per number of days, with one computation in flight per key: a page opened by
 * several operators, or reloaded, costs one scan a minute.
 */
export function createSummaryCache(compute: (days: number) => Promise<z.infer<typeof Summary>>) {
  const cache = new LRUCache<number, z.infer<typeof Summary>>({
    max: 16,
    ttl: SUMMARY_TTL_MS,
    fetchMethod: (days) => compute(days),
  });
  return async (days: number) => (await cache.fetch(days))!;
}
