import { type CompositeTrip, sectionMode } from './composite-trip.js';
import { type CsvExportOptions, type CsvRow, csvStream, type CsvTextStream } from './csv-stream.js';

export const SECTION_CSV_COLUMNS = [
  'user_id',
  'trip_id',
  'section_id',
  'section_index',
  'start_ts',
  'end_ts',
  'start_fmt_time',
  'end_fmt_time',
  'mode',
  'distance_m',
  'duration_s',
] as const;

/**
 * One CSV row per section of each composite trip, in the trip's section order (`section_index` from 0), joinable
 * to the trips CSV on `trip_id`. Untracked periods have no sections, so no rows. Streamed like `tripsCsv`.
 */
export function sectionsCsv(trips: AsyncIterable<CompositeTrip>, opts: CsvExportOptions): CsvTextStream {
  return csvStream(SECTION_CSV_COLUMNS, trips, (trip) => sectionRows(trip, opts.userId));
}

export function sectionRows(trip: CompositeTrip, userId: string): CsvRow[] {
  return (trip.data.sections ?? []).map((section, index) => ({
    user_id: userId,
    trip_id: trip._id.$oid,
    section_id: section._id?.$oid,
    section_index: index,
    start_ts: section.data?.start_ts,
    end_ts: section.data?.end_ts,
    start_fmt_time: section.data?.start_fmt_time,
    end_fmt_time: section.data?.end_fmt_time,
    mode: sectionMode(section),
    distance_m: section.data?.distance,
    duration_s: section.data?.duration,
  }));
}
