import { createHash } from 'node:crypto';
import type { Cql, Statement } from '../../../shared/cassandra/index.js';
import { upsertStatements, type StoredEntry } from '../../../shared/timeseries/index.js';

export interface TimeseriesWriter {
  /** Upserts entries by identity; resolves once every row is durable. */
  write(entries: readonly StoredEntry[]): Promise<void>;
}

/** Rows per unlogged batch: one partition each, small enough to stay under Cassandra's batch warning. */
const ROWS_PER_BATCH = 50;
/** Batches in flight at once per writer. */
const CONCURRENCY = 32;

/** A stable record id for an entry's identity, shown as `_id.$oid`: a re-push gets the same id. */
export function entryObjectId(userId: string, type: string, key: string, writeTs: number): string {
  return createHash('sha1').update(`${userId}\u0000${type}\u0000${key}\u0000${writeTs}`).digest('hex').slice(0, 24);
}

/**
 * Groups the rows of many entries by partition and writes each group as unlogged batches: atomic per partition,
 * one round trip per 50 rows. The (user, key, day) index rows repeat for every entry of a day and are sent once.
 */
export function createTimeseriesWriter(cql: Cql): TimeseriesWriter {
  return {
    async write(entries) {
      const groups = new Map<string, Statement[]>();
      const seenIndexRows = new Set<string>();
      for (const entry of entries) {
        for (const row of upsertStatements(entry)) {
          const group = `${row.table}|${row.partition}`;
          if (row.table === 'timeseries_days') {
            const indexRow = JSON.stringify(row.statement.params);
            if (seenIndexRows.has(indexRow)) continue;
            seenIndexRows.add(indexRow);
          }
          const statements = groups.get(group) ?? [];
          statements.push(row.statement);
          groups.set(group, statements);
        }
      }
      const batches: Statement[][] = [];
      for (const group of groups.values()) {
        for (let i = 0; i < group.length; i += ROWS_PER_BATCH) batches.push(group.slice(i, i + ROWS_PER_BATCH));
      }
      let next = 0;
      const worker = async () => {
        while (next < batches.length) {
          const batch = batches[next++] as Statement[];
          await cql.writeBatch(batch);
        }
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, batches.length) }, worker));
    },
  };
}
