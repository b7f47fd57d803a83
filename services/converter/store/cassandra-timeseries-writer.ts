import { type Cql, planBatches, rowBytes, type SizedRow } from '../../../shared/cassandra/index.js';
import { isOutage } from '../../../shared/errors/classify.js';
import { forEachBounded } from '../../../shared/runtime/for-each-bounded.js';
import { MAX_CONVERTED_ENTRY_BYTES } from '../../../shared/events/index.js';
import { upsertStatements, type StoredEntry } from '../../../shared/timeseries/index.js';
import type { TimeseriesWriter } from '../stores.js';

/** Batches in flight at once per writer. */
const CONCURRENCY = 32;
/**
 * A row bigger than this is refused before it is sent: far below Cassandra's largest mutation (16 MiB with the
 * 32 MiB commit-log segments of deploy/local/cassandra/cassandra.yaml), so a refusal never depends on the server.
 * The converter already refuses entries over MAX_CONVERTED_ENTRY_BYTES; this is the same bound plus the row's keys.
 */
export const MAX_ROW_BYTES = MAX_CONVERTED_ENTRY_BYTES + 64 * 1024;

/**
 * Groups the rows of many entries by partition and writes each group as unlogged batches, sized by rows and bytes
 * (shared/cassandra/plan-batches.ts): atomic per partition, one round trip per batch. The (user, key, day) index rows repeat for
 * every entry of a day and are sent once.
 *
 * When Cassandra refuses a batch for a reason that is not an outage, its rows are written one by one, and the
 * entries whose rows are still refused are returned: they go to the error timeseries instead of stalling the
 * partition. Their other rows may already be written; a replay of the dead letter rewrites them all by identity.
 */
export function createTimeseriesWriter(cql: Cql): TimeseriesWriter {
  return {
    async write(entries) {
      const rejected = new Map<number, string>();
      const rows: SizedRow<number>[] = [];
      const seenIndexRows = new Set<string>();
      entries.forEach((entry, owner) => {
        const entryRows = upsertStatements(entry).map((row) => ({ ...row, bytes: rowBytes(row.statement) }));
        const largest = Math.max(...entryRows.map((r) => r.bytes));
        if (largest > MAX_ROW_BYTES) {
          rejected.set(
            owner,
            `a timeseries row of ${largest} bytes exceeds the ${MAX_ROW_BYTES} bytes Cassandra is sent`,
          );
          return;
        }
        for (const row of entryRows) {
          if (row.dayIndex) {
            const indexRow = JSON.stringify(row.statement.params);
            if (seenIndexRows.has(indexRow)) continue;
            seenIndexRows.add(indexRow);
          }
          rows.push({ group: row.group, statement: row.statement, bytes: row.bytes, owner });
        }
      });

      const writeAlone = async (row: SizedRow<number>) => {
        if (rejected.has(row.owner)) return;
        try {
          await cql.writeBatch([row.statement]);
        } catch (err) {
          if (isOutage(err)) throw err;
          rejected.set(row.owner, `Cassandra refused the entry: ${err instanceof Error ? err.message : String(err)}`);
        }
      };
      await forEachBounded(planBatches(rows), CONCURRENCY, async (batch) => {
        try {
          await cql.writeBatch(batch.map((r) => r.statement));
        } catch (err) {
          if (isOutage(err)) throw err;
          for (const row of batch) await writeAlone(row);
        }
      });
      return [...rejected].map(([owner, reason]) => ({ entry: entries[owner] as StoredEntry, reason }));
    },
  };
}
