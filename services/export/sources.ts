import type { Cql } from '../../shared/cassandra/index.js';
import { createDayQualityReader, type DayQuality } from '../../shared/quality/day-quality.js';
import { createCompositeEntriesTable, openTables } from '../../shared/tables/index.js';
import { createTimeseriesReader, dayOf } from '../../shared/timeseries/index.js';
import type { CompositeTrip } from './domain/composite-trip.js';
import { MAX_EXPORT_DAYS } from './domain/export-range.js';

/**
 * What an export reads: a user's raw entries and composite trips, streamed in order. The only module of the
 * export that talks to Cassandra (through the tables' owner modules), so everything else can be fed arrays.
 */
export interface ExportSources {
  /**
   * The raw timeseries entries (JSON text, e-mission's `{_id, user_id, metadata, data}`) written on the UTC days
   * of `fromTs` to `toTs`: partitions are whole days, and exports ask for whole days, so the bounds are taken as
   * their days. In (day, key, write time) order.
   */
  rawEntries(userId: string, fromTs: number, toTs: number): AsyncIterable<string>;
  /** The composite trips (untracked periods included) whose `data.end_ts` is in [fromTs, toTs], in end order. */
  compositeTrips(userId: string, fromTs: number, toTs: number): AsyncIterable<CompositeTrip>;
  /** The completeness of the user's local days from `fromDate` to `toDate` (YYYY-MM-DD, both included). */
  dayQuality(userId: string, fromDate: string, toDate: string): Promise<DayQuality[]>;
}

/** Rows per page of raw entries: a location is about 1 kB, so a page is about half a megabyte. */
const RAW_PAGE_SIZE = 500;

export function createExportSources(cql: Cql): ExportSources {
  const timeseries = createTimeseriesReader(cql);
  const composites = createCompositeEntriesTable(cql);
  // An export covers at most MAX_EXPORT_DAYS, and a trips export asks a day either side for its trips' local dates.
  const quality = createDayQualityReader(openTables(cql), { maxDays: MAX_EXPORT_DAYS + 2 });
  return {
    dayQuality: async (userId, from, to) => (await quality(userId, { from, to })).days,
    rawEntries: (userId, fromTs, toTs) =>
      timeseries.rawEntries(userId, dayOf(fromTs), dayOf(toTs), { pageSize: RAW_PAGE_SIZE }),
    async *compositeTrips(userId, fromTs, toTs) {
      for await (const row of composites.range(userId, fromTs, toTs)) yield JSON.parse(row.json) as CompositeTrip;
    },
  };
}
