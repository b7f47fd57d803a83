import pLimit from 'p-limit';
import type { Cql, Statement } from '../../shared/cassandra/index.js';
import { createTimeseriesEraser, type TimeseriesPartition } from '../../shared/timeseries/index.js';

/**
 * The raw entries retention removes: where people were, sample by sample. Trips, places, labels and the rest of
 * the timeseries (motion, transitions, battery, inputs) stay: a study keeps its diaries after the traces go.
 */
export const RAW_LOCATION_KEYS: readonly string[] = ['background/location', 'background/filtered_location'];

export interface RetentionReport {
  users: number;
  /** Entries past the age, by key: removed, or with `dryRun` that would be. */
  entries: Record<string, number>;
}

const DAY_S = 86_400;
/** Deletes run at once. */
const DELETES_AT_ONCE = 16;

/**
 * Removes the raw location entries written before `beforeTs` (UTC seconds), of every user given: both of an
 * entry's rows (by write_ts and by data.ts), by its identity, so the two orderings never disagree; then the day-index
 * rows of days left empty. Only the key columns of old entries are read, never their text. Idempotent: a run
 * stopped halfway is finished by the next one.
 */
export async function applyRetention(
  cql: Cql,
  users: AsyncIterable<string> | Iterable<string>,
  {
    beforeTs,
    dryRun = false,
    keys = RAW_LOCATION_KEYS,
  }: { beforeTs: number; dryRun?: boolean; keys?: readonly string[] },
): Promise<RetentionReport> {
  const timeseries = createTimeseriesEraser(cql);
  const limit = pLimit(DELETES_AT_ONCE);
  const run = (statements: Statement[]) =>
    Promise.all(statements.map((s) => limit(() => cql.write(s.query, s.params))));
  const report: RetentionReport = { users: 0, entries: Object.fromEntries(keys.map((k) => [k, 0])) };
  const wanted = new Set(keys);
  for await (const userId of users) {
    report.users += 1;
    const partitions: TimeseriesPartition[] = [];
    for await (const p of timeseries.partitions(userId))
      if (wanted.has(p.key) && p.day * DAY_S < beforeTs) partitions.push(p);
    const dataDays = new Map<string, { key: string; day: number }>();
    for (const p of partitions.filter((q) => !q.byDataTs)) {
      const deletes: Statement[] = [];
      for await (const id of timeseries.writtenBefore(userId, p.key, p.day, beforeTs)) {
        report.entries[p.key] = (report.entries[p.key] ?? 0) + 1;
        if (dryRun) continue;
        deletes.push(...timeseries.removeEntry(userId, p.key, id));
        if (id.dataTs !== null) {
          const day = Math.floor(id.dataTs / DAY_S);
          dataDays.set(`${p.key}|${day}`, { key: p.key, day });
        }
      }
      if (dryRun) continue;
      await run(deletes);
      // A day wholly past the age leaves nothing: its index row goes too.
      if ((p.day + 1) * DAY_S <= beforeTs) await run([timeseries.removeDayIndex(userId, p)]);
    }
    if (dryRun) continue;
    for (const { key, day } of dataDays.values())
      if (await timeseries.isDataDayEmpty(userId, key, day))
        await run([timeseries.removeDayIndex(userId, { key, day, byDataTs: true })]);
  }
  return report;
}
