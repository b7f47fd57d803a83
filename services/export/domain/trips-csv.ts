import {
  type CompositeTrip,
  flattenLabels,
  isUntracked,
  lonLatOf,
  sectionMode,
  userInputData,
} from './composite-trip.js';
import { type CsvExportOptions, type CsvRow, csvStream, type CsvTextStream } from './csv-stream.js';

/** The user_input keys with a column of their own: the MULTILABEL questions every deployment asks. */
const LABEL_COLUMNS = ['mode_confirm', 'purpose_confirm', 'replaced_mode_confirm'] as const;

export const TRIP_CSV_COLUMNS = [
  'user_id',
  'trip_id',
  'start_ts',
  'end_ts',
  'start_fmt_time',
  'end_fmt_time',
  'start_lat',
  'start_lon',
  'end_lat',
  'end_lon',
  'distance_m',
  'duration_s',
  'modes',
  ...LABEL_COLUMNS,
  'other_inputs',
  'notes',
  'notes_json',
  'untracked',
  'day_score',
] as const;

/**
 * One CSV row per composite trip, untracked periods included (`untracked` true), for a researcher's spreadsheet, with
 * the completeness score of the trip's local day (days-csv.ts) when `dayScoreOf` knows it. Streamed: see `csvStream`
 * for backpressure and errors.
 */
export function tripsCsv(
  trips: AsyncIterable<CompositeTrip>,
  opts: CsvExportOptions & { dayScoreOf?: (localDate: string) => number | null | undefined },
): CsvTextStream {
  return csvStream(TRIP_CSV_COLUMNS, trips, (trip) => [
    { ...tripRow(trip, opts.userId), day_score: opts.dayScoreOf?.(tripLocalDate(trip)) },
  ]);
}

/** The trip's local date, e-mission's way: the date part of its local start time. */
export const tripLocalDate = (trip: CompositeTrip): string => String(trip.data.start_fmt_time ?? '').slice(0, 10);

/**
 * The row of one trip. The three common labels get columns; any other input (an ENKETO survey, a custom label) goes
 * in `other_inputs` as JSON so that nothing said about the trip is lost, and notes go in `notes_json`. Both hold the
 * inputs' `data` only: their entry envelopes repeat the user's real id, which a de-identified export must not carry.
 * Both are always valid JSON (`{}`, `[]` when empty), so each cell can be parsed without a special case.
 */
export function tripRow(trip: CompositeTrip, userId: string): CsvRow {
  const { data } = trip;
  const labels = flattenLabels(data.user_input);
  const otherInputs = Object.fromEntries(
    Object.entries(data.user_input ?? {})
      .filter(([key]) => !(LABEL_COLUMNS as readonly string[]).includes(key))
      .map(([key, value]) => [key, userInputData(value)]),
  );
  const additions = data.additions ?? [];
  const start = lonLatOf(data.start_loc);
  const end = lonLatOf(data.end_loc);
  return {
    user_id: userId,
    trip_id: trip._id.$oid,
    start_ts: data.start_ts,
    end_ts: data.end_ts,
    start_fmt_time: data.start_fmt_time,
    end_fmt_time: data.end_fmt_time,
    start_lat: start?.[1],
    start_lon: start?.[0],
    end_lat: end?.[1],
    end_lon: end?.[0],
    distance_m: data.distance,
    duration_s: data.duration,
    modes: (data.sections ?? []).map(sectionMode).join(';'),
    ...Object.fromEntries(LABEL_COLUMNS.map((key) => [key, labels[key]])),
    other_inputs: JSON.stringify(otherInputs),
    notes: additions.length,
    notes_json: JSON.stringify(additions.map((a) => a.data ?? null)),
    untracked: isUntracked(trip),
  };
}
