import { ValidationError } from '../errors/index.js';
import { forEachBounded } from '../runtime/for-each-bounded.js';
import { ROWS_PER_TURN, yieldToEventLoop } from './event-loop.js';
import type { Cql } from './execute.js';

export interface DayScanLimits {
  /** Rows the scan may read before it is refused with a ValidationError naming the limit. */
  maxRows: number;
  /** Day partitions read at once. */
  concurrency: number;
  /** What a row is, for the refusal's message ("sections", "trips"). */
  what: string;
}

/**
 * Reads day partitions, at most `concurrency` at once, handing each row to `visit` as it streams in (nothing is
 * collected), and refuses the call past `maxRows` rows: the bounds every scan over a range of days obeys.
 */
export async function scanDayPartitions<K>(
  cql: Cql,
  days: readonly K[],
  statement: (day: K) => { query: string; params: unknown[] },
  visit: (row: Record<string, unknown>, day: K) => void,
  { maxRows, concurrency, what }: DayScanLimits,
): Promise<void> {
  let read = 0;
  // The first failure (past maxRows, or an outage) stops the rest: days still queued do not start and those in
  // flight stop at their next row, rather than read up to 731 partitions for nobody.
  await forEachBounded(days, concurrency, async (day, stopped) => {
    const { query, params } = statement(day);
    for await (const r of cql.iterate(query, params, 5000)) {
      if (stopped.aborted) return;
      if (++read > maxRows)
        throw new ValidationError(
          `the range holds more than ${maxRows} ${what}, more than one call may read; ask a shorter range`,
          { details: { limit: maxRows } },
        );
      visit(r, day);
      if (read % ROWS_PER_TURN === 0) await yieldToEventLoop();
    }
  });
}
