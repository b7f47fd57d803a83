import { ValidationError } from '../../../shared/errors/index.js';
import { dayNumber, isoDay, parseAnyIsoDay } from '../../../shared/time/index.js';

const DAY_S = 86_400;

/** Days an export covers when the caller names no start: the last 30, today included. */
export const DEFAULT_EXPORT_DAYS = 30;

/** Days one API call may export: a year, leap day included. Longer histories take several calls, or the CLI. */
export const MAX_EXPORT_DAYS = 366;

/**
 * UTC days from `fromDate` to `toDate` (YYYY-MM-DD, both included) and the timestamps they span. `toTs` is the
 * last microsecond of the last day rather than the next midnight, because the stores' range reads include both
 * bounds: a trip ending at midnight exactly belongs to the day it starts, not to both.
 */
export interface ExportRange {
  fromDate: string;
  toDate: string;
  fromTs: number;
  toTs: number;
  days: number;
}

export interface RangeFields {
  start_date?: unknown;
  end_date?: unknown;
}

/**
 * The range a request asks: `end_date` defaults to `today`, `start_date` to `DEFAULT_EXPORT_DAYS` days ending
 * with `end_date`. A date that is not a real YYYY-MM-DD, a start after the end, or more than `maxDays` days are
 * a ValidationError naming the field or the limit.
 */
export function parseExportRange(
  fields: RangeFields,
  today: string,
  { maxDays = MAX_EXPORT_DAYS }: { maxDays?: number } = {},
): ExportRange {
  const to = fields.end_date === undefined ? dayOf(today, 'today') : dayOf(fields.end_date, 'end_date');
  const from =
    fields.start_date === undefined ? to - (DEFAULT_EXPORT_DAYS - 1) : dayOf(fields.start_date, 'start_date');
  if (from > to)
    throw new ValidationError(`start_date ${dateOf(from)} is after end_date ${dateOf(to)}`, {
      details: { field: 'start_date' },
    });
  const days = to - from + 1;
  if (days > maxDays)
    throw new ValidationError(
      `an export covers at most ${maxDays} days, this one ${days}; ask a shorter range, or several`,
      { details: { limit_days: maxDays } },
    );
  return { fromDate: dateOf(from), toDate: dateOf(to), fromTs: from * DAY_S, toTs: (to + 1) * DAY_S - 1e-6, days };
}

/** The range of one UTC day. */
export function dayRange(date: string): ExportRange {
  return parseExportRange({ start_date: date, end_date: date }, date);
}

/** Every date of the range, in order. */
export function* datesOf(range: ExportRange): Generator<string> {
  const first = dayOf(range.fromDate, 'fromDate');
  for (let day = first; day < first + range.days; day++) yield dateOf(day);
}

/** Today's UTC date, YYYY-MM-DD. */
export function utcDate(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, 10);
}

function dayOf(value: unknown, field: string): number {
  const parsed = typeof value === 'string' ? parseAnyIsoDay(value) : undefined;
  if (!parsed)
    throw new ValidationError(`${field} must be an existing date YYYY-MM-DD, got ${String(value).slice(0, 40)}`, {
      details: { field },
    });
  return dayNumber(parsed);
}

function dateOf(day: number): string {
  const d = new Date(day * DAY_S * 1000);
  return isoDay({ year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() });
}
