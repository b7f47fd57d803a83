import { MAX_PLAUSIBLE_TS } from './plausible-timestamp.js';

/**
 * Strict calendar checks for dates that arrive in requests. `Date.parse('2003-02-31')` and `Date.UTC(2015, 12, 32)`
 * roll over into the next month instead of failing, so a wrong date would silently read other days; these say
 * what is wrong instead, and the caller answers 400 with it.
 */

/** A day of the proleptic Gregorian calendar. */
export interface CalendarDay {
  year: number;
  month: number;
  day: number;
}

/** Years a query may name: no phone data predates the epoch, and 1e10 s (MAX_PLAUSIBLE_TS) falls in 2286. */
export const MIN_YEAR = 1970;
export const MAX_YEAR = 2286;

const DAY_S = 86_400;

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  return [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/**
 * Why `{year, month?, day?}` (e-mission's LocalDate query fields) does not name a real year, month or day, or
 * undefined when it does. `name` prefixes each problem (`start_time.month must be 1..12, got 13`).
 */
export function partialDateProblem(
  fields: { year: unknown; month?: unknown; day?: unknown },
  name: string,
): string | undefined {
  const { year, month, day } = fields;
  if (!isInt(year) || year < MIN_YEAR || year > MAX_YEAR)
    return `${name}.year must be an integer from ${MIN_YEAR} to ${MAX_YEAR}, got ${show(year)}`;
  if (month === undefined) {
    return day === undefined ? undefined : `${name}.day needs ${name}.month`;
  }
  if (!isInt(month) || month < 1 || month > 12)
    return `${name}.month must be an integer from 1 to 12, got ${show(month)}`;
  if (day === undefined) return undefined;
  const last = daysInMonth(year, month);
  if (!isInt(day) || day < 1 || day > last)
    return `${name}.day must be an integer from 1 to ${last} for ${year}-${pad(month)}, got ${show(day)}`;
  return undefined;
}

/** Parses `YYYY-MM-DD` strictly (real month and day, year in range); undefined for anything else. */
export function parseIsoDay(text: string): CalendarDay | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return undefined;
  const d = { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
  return partialDateProblem(d, 'date') === undefined ? d : undefined;
}

/** `YYYY-MM-DD`. */
export function isoDay(d: CalendarDay): string {
  return `${String(d.year).padStart(4, '0')}-${pad(d.month)}-${pad(d.day)}`;
}

/** Days from 1970-01-01 to `d` (its UTC day number, as the day buckets count). */
export function dayNumber(d: CalendarDay): number {
  // Date.UTC reads years 0-99 as 1900-1999; setUTCFullYear takes the year as given.
  const t = new Date(0);
  t.setUTCFullYear(d.year, d.month - 1, d.day);
  return t.getTime() / 1000 / DAY_S;
}

/**
 * A `YYYY-MM-DD` that names a real day of any year 0001-9999, where parseIsoDay keeps to the years data can have:
 * for ranges a person types (an export from 0001-01-01 is a question with an empty answer, not an error).
 */
export function parseAnyIsoDay(text: string): CalendarDay | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return undefined;
  const d = { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
  if (d.year < 1 || d.month < 1 || d.month > 12 || d.day < 1 || d.day > daysInMonth(d.year, d.month)) return undefined;
  return d;
}

/** Why `value` is not a timestamp in seconds within 0..1e10, or undefined when it is. */
export function timestampProblem(value: unknown, name: string): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value))
    return `${name} must be a number of seconds since the epoch, got ${show(value)}`;
  if (value < 0 || value >= MAX_PLAUSIBLE_TS)
    return `${name} must be between 0 and ${MAX_PLAUSIBLE_TS} seconds since the epoch, got ${value}`;
  return undefined;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** A short, safe rendering of a rejected value for an error message. */
function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 40));
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined)
    return String(value);
  return Array.isArray(value) ? 'a list' : 'an object';
}

/** `YYYY-MM-DD` moved by `days`, kept within the calendar's four-digit years (the first and last days stay put). */
export function shiftIsoDay(date: string, days: number): string {
  const shifted = new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_S * 1000).toISOString();
  if (shifted.startsWith('+')) return '9999-12-31';
  if (shifted.startsWith('-')) return '0000-01-01';
  return shifted.slice(0, 10);
}

/** Days from `from` to `to` (`YYYY-MM-DD`), both counted. */
export const daysSpanned = (from: string, to: string): number =>
  Math.round((Date.parse(to) - Date.parse(from)) / (DAY_S * 1000)) + 1;
