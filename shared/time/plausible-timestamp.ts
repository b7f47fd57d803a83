/**
 * The latest timestamp, in seconds, the server accepts: 1e10 s is the year 2286. Anything later is a unit
 * mistake (microseconds, or milliseconds counted twice) or garbage, and would overflow the day buckets and the
 * date formatting downstream. Phones since 1970 are comfortably inside.
 */
export const MAX_PLAUSIBLE_TS = 1e10;

/** True for a finite timestamp in seconds from the epoch (0 is some phones' "unset") to the year 2286. */
export function isPlausibleTimestamp(ts: unknown): ts is number {
  return typeof ts === 'number' && Number.isFinite(ts) && ts >= 0 && ts < MAX_PLAUSIBLE_TS;
}
