import type { DayQuality } from '../../../shared/quality/day-quality.js';
import { type CsvExportOptions, type CsvRow, csvStream, type CsvTextStream } from './csv-stream.js';

export const DAY_CSV_COLUMNS = [
  'user_id',
  'local_date',
  'score',
  'considered_quarters',
  'located_quarters',
  'at_place_quarters',
  'tracking_off_quarters',
  'no_locations_quarters',
  'no_data_quarters',
  'hours_with_locations',
  'gaps_json',
  'battery_pct',
  'trips',
  'labelled_trips',
] as const;

/**
 * One CSV row per local day of the participant: the day's completeness score and what it is made of, by the rule
 * docs/data-quality.md states, so a researcher can weight or leave out days without rebuilding it from raw data.
 */
export function daysCsv(days: AsyncIterable<DayQuality>, opts: CsvExportOptions): CsvTextStream {
  return csvStream(DAY_CSV_COLUMNS, days, (day) => [dayRow(day, opts.userId)]);
}

export function dayRow(day: DayQuality, userId: string): CsvRow {
  const q = day.quarters;
  return {
    user_id: userId,
    local_date: day.localDate,
    score: day.score,
    considered_quarters: day.considered,
    located_quarters: q.located,
    at_place_quarters: q.at_place,
    tracking_off_quarters: q.tracking_off,
    no_locations_quarters: q.no_locations,
    no_data_quarters: q.no_data,
    hours_with_locations: day.hoursWithLocations,
    gaps_json: JSON.stringify(day.gaps),
    battery_pct: day.battery?.pct,
    trips: day.trips,
    labelled_trips: day.labelledTrips,
  };
}
