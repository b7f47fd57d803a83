/** e-mission's LocalDate: wall-clock fields of a timestamp in a time zone; weekday 0 is Monday. */
export interface LocalDate {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number;
  timezone: string;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat | undefined {
  let f = formatters.get(timeZone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
        weekday: 'short',
      });
    } catch {
      return undefined;
    }
    formatters.set(timeZone, f);
  }
  return f;
}

const WEEKDAYS: Record<string, number> = { Mon: 0, Tue: 1, Wed: 2, Thu: 3, Fri: 4, Sat: 5, Sun: 6 };

export function isKnownTimeZone(timeZone: string): boolean {
  return formatterFor(timeZone) !== undefined;
}

/**
 * A zone's offset from UTC, in seconds, is asked of Intl once per zone and quarter-hour and remembered: Intl's
 * formatToParts for every entry was the converter's largest cost (a fifth of its time in the profile). Most
 * transitions fall on a UTC quarter-hour, but not all (St John's moved at 00:01 local time until 2011), so a
 * quarter-hour whose two ends disagree is marked mixed, and its instants are resolved by the minute: transitions
 * since the zones were standardised fall on whole minutes.
 */
const QUARTER_HOUR_S = 900;
const MINUTE_S = 60;
/** The remembered value of a quarter-hour that holds a transition. */
const MIXED = Number.NaN;
const offsets = new Map<string, number>();
const MAX_REMEMBERED_OFFSETS = 100_000;

/** The offset at one instant, from Intl's wall clock for it. */
function offsetByIntl(instant: number, timeZone: string): number | undefined {
  const wall = localDateByIntl(instant, timeZone);
  if (!wall) return undefined;
  return Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second) / 1000 - instant;
}

function remember(key: string, offset: number): void {
  if (offsets.size >= MAX_REMEMBERED_OFFSETS) offsets.clear();
  offsets.set(key, offset);
}

function offsetSeconds(ts: number, timeZone: string): number | undefined {
  const quarter = Math.floor(ts / QUARTER_HOUR_S);
  const key = `${timeZone}|${quarter}`;
  let known = offsets.get(key);
  if (known === undefined) {
    const start = quarter * QUARTER_HOUR_S;
    const first = offsetByIntl(start, timeZone);
    if (first === undefined) return undefined;
    known = offsetByIntl(start + QUARTER_HOUR_S - 1, timeZone) === first ? first : MIXED;
    remember(key, known);
  }
  if (!Number.isNaN(known)) return known;
  const minute = Math.floor(ts / MINUTE_S);
  const minuteKey = `${timeZone}|m${minute}`;
  const byMinute = offsets.get(minuteKey) ?? offsetByIntl(minute * MINUTE_S, timeZone);
  if (byMinute !== undefined) remember(minuteKey, byMinute);
  return byMinute;
}

/**
 * The local date (YYYY-MM-DD) of `ts` in `timeZone`, which of its quarter-hours (0–95) holds it and the seconds since
 * its local midnight; undefined for an unknown zone. Cheap enough to call per entry: it reads the remembered offset.
 */
export function localQuarter(
  ts: number,
  timeZone: string,
): { localDate: string; quarter: number; secondOfDay: number } | undefined {
  const offset = offsetSeconds(ts, timeZone);
  if (offset === undefined) return undefined;
  const wall = ts + offset;
  const secondOfDay = ((wall % 86_400) + 86_400) % 86_400;
  return {
    localDate: new Date(Math.round(wall - secondOfDay) * 1000).toISOString().slice(0, 10),
    quarter: Math.floor(secondOfDay / QUARTER_HOUR_S),
    secondOfDay,
  };
}

/** Wall-clock fields of `ts` (seconds) in `timeZone`; undefined for an unknown zone. */
export function localDate(ts: number, timeZone: string): LocalDate | undefined {
  const offset = offsetSeconds(ts, timeZone);
  if (offset === undefined) return undefined;
  const wall = new Date(Math.floor(ts * 1000) + offset * 1000);
  return {
    year: wall.getUTCFullYear(),
    month: wall.getUTCMonth() + 1,
    day: wall.getUTCDate(),
    hour: wall.getUTCHours(),
    minute: wall.getUTCMinutes(),
    second: wall.getUTCSeconds(),
    // JavaScript counts from Sunday; e-mission (Python) from Monday.
    weekday: (wall.getUTCDay() + 6) % 7,
    timezone: timeZone,
  };
}

const WALL_FIELDS = ['year', 'month', 'day', 'hour', 'minute', 'second'] as const;

/** Intl's answer for one instant, field by field: the source of the remembered offsets, and what localDate must equal. */
export function localDateByIntl(ts: number, timeZone: string): LocalDate | undefined {
  const f = formatterFor(timeZone);
  if (!f) return undefined;
  const parts: Record<string, string> = {};
  for (const p of f.formatToParts(new Date(Math.floor(ts * 1000)))) parts[p.type] = p.value;
  const wall = Object.fromEntries(WALL_FIELDS.map((field) => [field, Number(parts[field])])) as Record<
    (typeof WALL_FIELDS)[number],
    number
  >;
  return {
    ...wall,
    weekday: WEEKDAYS[parts['weekday'] ?? ''] ?? 0,
    timezone: timeZone,
  };
}

function pad(n: number, width = 2): string {
  return String(Math.abs(n)).padStart(width, '0');
}

/** ISO 8601 with microseconds and the zone's offset, as arrow's isoformat: 2015-08-27T08:18:27.867000-07:00. */
export function isoLocal(ts: number, timeZone: string): string | undefined {
  const ld = localDate(ts, timeZone);
  if (!ld) return undefined;
  const offsetMinutes = Math.round((offsetSeconds(ts, timeZone) as number) / 60);
  const micros = Math.round((ts - Math.floor(ts)) * 1e6);
  const fraction = micros === 0 ? '' : `.${pad(Math.min(micros, 999_999), 6)}`;
  const sign = offsetMinutes < 0 ? '-' : '+';
  const offset = `${sign}${pad(Math.trunc(Math.abs(offsetMinutes) / 60))}:${pad(Math.abs(offsetMinutes) % 60)}`;
  return `${ld.year}-${pad(ld.month)}-${pad(ld.day)}T${pad(ld.hour)}:${pad(ld.minute)}:${pad(ld.second)}${fraction}${offset}`;
}
