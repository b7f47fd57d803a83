import type { Cql } from '../../shared/cassandra/index.js';
import { createCompositeEntriesTable } from '../../shared/tables/index.js';

/**
 * Data a schema migration moves, by the migration's version: run once, when that version is first applied, before
 * it is recorded, so an interrupted copy runs again on the next start. Each must be idempotent.
 */
export const dataMigrations: ReadonlyMap<number, (cql: Cql) => Promise<void>> = new Map([[9, copyCompositeDays]]);

/**
 * 009 moved the composite trips from `composite_days` (a day per cell, no longer written or read) to
 * `composite_entries`: an upgraded deployment keeps serving the days it built before, without a rebuild.
 */
async function copyCompositeDays(cql: Cql): Promise<void> {
  const entries = createCompositeEntriesTable(cql);
  for await (const row of cql.iterate('SELECT user_id, local_date, trips FROM composite_days', [], 20)) {
    await entries.saveDay(
      String(row['user_id']),
      String(row['local_date']),
      JSON.parse(String(row['trips'])) as unknown[],
    );
  }
}
