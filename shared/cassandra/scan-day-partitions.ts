import pLimit from 'p-limit';
import { ValidationError } from '../errors/index.js';
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
  const limit = pLimit(concurrency);
  let read = 0;
  let refused: ValidationError | undefined;
  // Set on the first failed day (an outage): Promise.all has rejected and the request is answered, so the days
  // still queued return as they start, and those in flight stop at their next row, rather than read up to 731
  // partitions for nobody. (A flag rather than limit.clearQueue(), which would leave their promises pending.)
  let failed = false;
  const stopped = () => refused !== undefined || failed;
  const scanDay = async (day: K) => {
    const { query, params } = statement(day);
    for await (const r of cql.iterate(query, params, 5000)) {
      if (stopped()) return;
      if (++read > maxRows) {
        refused = new ValidationError(
          `the range holds more than ${maxRows} ${what}, more than one call may read; ask a shorter range`,
          { details: { limit: maxRows } },
        );
        return;
      }
      visit(r, day);
      if (read % ROWS_PER_TURN === 0) await yieldToEventLoop();
    }
  };
  await Promise.all(
    days.map((day) =>
      limit(async () => {
        if (stopped()) return;
        try {
          await scanDay(day);
        } catch (err) {
          failed = true;
          throw err;
        }
      }),
    ),
  );
  if (refused) throw refused;
}
