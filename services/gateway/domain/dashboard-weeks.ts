/**
 * The weeks a public dashboard covers, as trip-local dates. Weeks start on Monday (ISO 8601) and are always whole:
 * the week holding the last day shown is read to its Sunday, so a trip that is already "tomorrow" where it was
 * made (east of UTC) falls in a week the dashboard shows rather than being cut off at today's UTC date.
 */

const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` of a UTC midnight. */
function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The UTC midnight of a `YYYY-MM-DD` date. */
function midnight(date: string): number {
  return Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)));
}

/** The date of an epoch millisecond in UTC: "today" where no trip's own zone says otherwise. */
export function utcDate(ms: number): string {
  return isoDay(ms);
}

/** The Monday of the week a `YYYY-MM-DD` date falls in. */
export function weekOf(date: string): string {
  const ms = midnight(date);
  // getUTCDay: Sunday 0 … Saturday 6; days back to Monday: Sunday 6, Monday 0, Tuesday 1, …
  const back = (new Date(ms).getUTCDay() + 6) % 7;
  return isoDay(ms - back * DAY_MS);
}

export interface DashboardPeriod {
  /** The Mondays of the weeks shown, oldest first. */
  weeks: string[];
  /** Every date of those weeks, Monday of the first to Sunday of the last: the day partitions read. */
  dates: string[];
}

/** `weeks` whole weeks, the last one holding `endDate`. */
export function dashboardPeriod(endDate: string, weeks: number): DashboardPeriod {
  const lastMonday = midnight(weekOf(endDate));
  const firstMonday = lastMonday - (weeks - 1) * 7 * DAY_MS;
  const out: DashboardPeriod = { weeks: [], dates: [] };
  for (let day = firstMonday; day < lastMonday + 7 * DAY_MS; day += DAY_MS) {
    const date = isoDay(day);
    if (out.dates.length % 7 === 0) out.weeks.push(date);
    out.dates.push(date);
  }
  return out;
}
