import type { Cql } from '../cassandra/index.js';

/**
 * Table `composite_days`: one row per user and trip-local date holding that day's `analysis/composite_trip`
 * entries (trips and untracked periods, labelled), which `find_entries` serves to the current app. Written by the
 * trip builder each time it renders a day; read by the gateway.
 */
const TABLE = 'composite_days';

/** One day's composite-trip entries. */
export interface StoredCompositeDay {
  localDate: string;
  entries: unknown[];
}

export interface CompositeDaysTable {
  save(userId: string, localDate: string, composites: readonly unknown[]): Promise<void>;
  remove(userId: string, localDate: string): Promise<void>;
  /**
   * The days from `fromDate` to `toDate` (YYYY-MM-DD, inclusive) that have composites, one at a time, oldest first
   * (or newest first): the caller stops reading when it has enough.
   */
  days(
    userId: string,
    fromDate: string,
    toDate: string,
    options?: { newestFirst?: boolean },
  ): AsyncIterable<StoredCompositeDay>;
}

export function createCompositeDaysTable(cql: Cql): CompositeDaysTable {
  return {
    async save(userId, localDate, composites) {
      await cql.write(`INSERT INTO ${TABLE} (user_id, local_date, trips, update_ts) VALUES (?, ?, ?, ?)`, [
        userId,
        localDate,
        JSON.stringify(composites),
        new Date(),
      ]);
    },
    async remove(userId, localDate) {
      await cql.write(`DELETE FROM ${TABLE} WHERE user_id = ? AND local_date = ?`, [userId, localDate]);
    },
    async *days(userId, fromDate, toDate, { newestFirst = false } = {}) {
      const order = newestFirst ? 'DESC' : 'ASC';
      for await (const row of cql.iterate(
        `SELECT local_date, trips FROM ${TABLE} WHERE user_id = ? AND local_date >= ? AND local_date <= ? ORDER BY local_date ${order}`,
        [userId, fromDate, toDate],
        // A day's entries carry every resampled location: a few days per page keeps a page small.
        20,
      )) {
        yield { localDate: String(row['local_date']), entries: JSON.parse(String(row['trips'])) as unknown[] };
      }
    },
  };
}
