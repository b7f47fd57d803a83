import type { Cql } from '../../../shared/cassandra/index.js';
import { createDayQualityReader } from '../../../shared/quality/day-quality.js';
import { createCompositeEntriesTable, openTables } from '../../../shared/tables/index.js';
import { createTimeseriesReader, dayOf } from '../../../shared/timeseries/index.js';
import type { CompositeTrip } from '../domain/composite-trip.js';
import { MAX_EXPORT_DAYS } from '../domain/export-range.js';
import type { ExportSources } from '../stores.js';

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
