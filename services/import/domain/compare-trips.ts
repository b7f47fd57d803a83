import { ImportFormatError } from './import-format-error.js';

/** A trip as both sides can state it: start and end in seconds since 1970, and the zone its day is counted in. */
export interface TripSpan {
  startTs: number;
  endTs: number;
  /** IANA zone of the trip's start; UTC when absent or unknown. */
  timeZone?: string;
}

/** How one local day's trips compare. `matched` counts pairs on the e-mission trip's day. */
export interface DayComparison {
  /** YYYY-MM-DD of the trip's start in its zone. */
  localDate: string;
  emissionTrips: number;
  itineraTrips: number;
  matched: number;
  /**
   * matched / max(emissionTrips, itineraTrips): 1 only when every trip of the day, on both sides, found its
   * partner, so a missed trip and an extra (or split) trip both lower it. 1 when both sides have none.
   */
  share: number;
}

export interface TripComparison {
  /** Days on which either side has a trip, oldest first. */
  days: DayComparison[];
  total: Omit<DayComparison, 'localDate'>;
  /** The pairs, as indices into the `emission` and `itinera` arrays given. */
  pairs: Array<{ emission: number; itinera: number }>;
}

/**
 * Slack on the tolerance for float seconds: 1440688739.672 + 60 minus 1440688739.672 is not exactly 60, and a
 * trip 60 s off must match when the tolerance is 60 s.
 */
const FLOAT_SLACK_S = 1e-6;
const UTC = 'UTC';

const dayFormatters = new Map<string, Intl.DateTimeFormat>();

/** `Intl` answers YYYY-MM-DD in the `en-CA` locale; one formatter per zone, as building one costs more than using it. */
function dayFormatter(timeZone: string): Intl.DateTimeFormat {
  let f = dayFormatters.get(timeZone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    } catch {
      // An unknown zone name (a typo, a zone newer than this Node's ICU): count the day in UTC rather than fail
      // the whole comparison; at worst one trip lands on the neighbouring day.
      f = timeZone === UTC ? undefined : dayFormatter(UTC);
      if (!f) throw new RangeError('UTC is not a known time zone');
    }
    dayFormatters.set(timeZone, f);
  }
  return f;
}

/** The local date (YYYY-MM-DD) of `ts` in `timeZone`, UTC when no zone is given or it is unknown. */
export function localDateOf(ts: number, timeZone: string = UTC): string {
  return dayFormatter(timeZone).format(new Date(ts * 1000));
}

function checkTrips(trips: readonly TripSpan[], side: string): void {
  trips.forEach((t, i) => {
    // A bug in the caller's extraction, not a data problem to report: the sources below never produce these.
    if (!Number.isFinite(t.startTs) || !Number.isFinite(t.endTs)) {
      throw new RangeError(`${side}[${i}] has a non-finite startTs or endTs`);
    }
  });
}

/** Index of the first trip in `order` (indices sorted by start) starting at or after `ts`. */
function firstStartingAtOrAfter(trips: readonly TripSpan[], order: readonly number[], ts: number): number {
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((trips[order[mid] as number] as TripSpan).startTs < ts) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * One-to-one pairs of trips whose starts and ends are both within `toleranceS`, chosen greedily by the closest
 * start (then the closest end, then input order, so the answer never depends on sort stability). Greedy rather
 * than optimal: trips of one person do not overlap, so two candidates for one trip are rare, and the closest one
 * is the one a person would pick.
 */
export function matchTrips(
  emission: readonly TripSpan[],
  itinera: readonly TripSpan[],
  toleranceS = 60,
): Array<{ emission: number; itinera: number }> {
  checkTrips(emission, 'emission');
  checkTrips(itinera, 'itinera');
  const tolerance = toleranceS + FLOAT_SLACK_S;
  const byStart = itinera
    .map((_, i) => i)
    .sort((a, b) => (itinera[a] as TripSpan).startTs - (itinera[b] as TripSpan).startTs);
  const candidates: Array<{ e: number; i: number; dStart: number; dEnd: number }> = [];
  emission.forEach((et, e) => {
    for (let k = firstStartingAtOrAfter(itinera, byStart, et.startTs - tolerance); k < byStart.length; k++) {
      const i = byStart[k] as number;
      const it = itinera[i] as TripSpan;
      if (it.startTs > et.startTs + tolerance) break;
      const dEnd = Math.abs(it.endTs - et.endTs);
      if (dEnd <= tolerance) candidates.push({ e, i, dStart: Math.abs(it.startTs - et.startTs), dEnd });
    }
  });
  candidates.sort((a, b) => a.dStart - b.dStart || a.dEnd - b.dEnd || a.e - b.e || a.i - b.i);
  const usedEmission = new Set<number>();
  const usedItinera = new Set<number>();
  const pairs: Array<{ emission: number; itinera: number }> = [];
  for (const c of candidates) {
    if (usedEmission.has(c.e) || usedItinera.has(c.i)) continue;
    usedEmission.add(c.e);
    usedItinera.add(c.i);
    pairs.push({ emission: c.e, itinera: c.i });
  }
  return pairs.sort((a, b) => a.emission - b.emission);
}

function shareOf(matched: number, emissionTrips: number, itineraTrips: number): number {
  const most = Math.max(emissionTrips, itineraTrips);
  return most === 0 ? 1 : matched / most;
}

/**
 * e-mission's and Itinera's trips of one user, compared day by day in each trip's own zone (e-mission files a trip
 * under its start's local date). Matching runs over all trips at once, so a pair whose two starts fall either side
 * of midnight still matches; it is counted on the e-mission trip's day.
 */
export function compareTrips(
  emission: readonly TripSpan[],
  itinera: readonly TripSpan[],
  toleranceS = 60,
): TripComparison {
  const pairs = matchTrips(emission, itinera, toleranceS);
  const days = new Map<string, DayComparison>();
  const dayOf = (t: TripSpan): DayComparison => {
    const localDate = localDateOf(t.startTs, t.timeZone);
    let day = days.get(localDate);
    if (!day) {
      day = { localDate, emissionTrips: 0, itineraTrips: 0, matched: 0, share: 1 };
      days.set(localDate, day);
    }
    return day;
  };
  for (const t of emission) dayOf(t).emissionTrips++;
  for (const t of itinera) dayOf(t).itineraTrips++;
  for (const p of pairs) dayOf(emission[p.emission] as TripSpan).matched++;
  const rows = [...days.values()].sort((a, b) => (a.localDate < b.localDate ? -1 : a.localDate > b.localDate ? 1 : 0));
  for (const row of rows) row.share = shareOf(row.matched, row.emissionTrips, row.itineraTrips);
  const total = {
    emissionTrips: emission.length,
    itineraTrips: itinera.length,
    matched: pairs.length,
    share: shareOf(pairs.length, emission.length, itinera.length),
  };
  return { days: rows, total, pairs };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * A trip's zone from its `data`/properties: `start_local_dt.timezone` first, since e-mission wrote it from the
 * phone's zone at the trip's start; `fallback` (the entry's `metadata.time_zone`) only if that is missing, because
 * e-mission stamps every server-made entry's metadata with America/Los_Angeles wherever the user is.
 */
function tripTimeZone(props: Record<string, unknown>, fallback?: unknown): string | undefined {
  const local = props['start_local_dt'];
  return (isPlainObject(local) ? stringOr(local['timezone']) : undefined) ?? stringOr(fallback);
}

function spanOf(props: Record<string, unknown>, fallbackZone?: unknown): TripSpan | undefined {
  const { start_ts: startTs, end_ts: endTs } = props;
  if (typeof startTs !== 'number' || !Number.isFinite(startTs)) return undefined;
  if (typeof endTs !== 'number' || !Number.isFinite(endTs)) return undefined;
  const timeZone = tripTimeZone(props, fallbackZone);
  return timeZone === undefined ? { startTs, endTs } : { startTs, endTs, timeZone };
}

/** Where e-mission's trips live, best first: the trips a user sees, then their cleaned form, then composites. */
const TRIP_SOURCES: ReadonlyArray<(metadata: Record<string, unknown>) => boolean> = [
  (m) => m['key'] === 'analysis/confirmed_trip',
  (m) => m['key'] === 'analysis/cleaned_trip',
  // Composite trips also hold untracked time (origin_key analysis/confirmed_untracked), which is not a trip.
  (m) => m['key'] === 'analysis/composite_trip' && m['origin_key'] === 'analysis/confirmed_trip',
];

/**
 * e-mission's trips among a user's entries: `analysis/confirmed_trip`, or `analysis/cleaned_trip` when there are no
 * confirmed ones (a deployment whose pipeline stopped before label matching), or, failing both, the composite
 * trips of a confirmed trip. Entries without finite `data.start_ts`/`data.end_ts` are left out.
 */
export function emissionTripsFromEntries(
  entries: Iterable<{ metadata: Record<string, unknown>; data: Record<string, unknown> }>,
): TripSpan[] {
  const found: TripSpan[][] = TRIP_SOURCES.map(() => []);
  for (const e of entries) {
    const source = TRIP_SOURCES.findIndex((isSource) => isSource(e.metadata));
    if (source < 0) continue;
    const span = spanOf(e.data, e.metadata['time_zone']);
    if (span) found[source]?.push(span);
  }
  return found.find((trips) => trips.length > 0) ?? [];
}

/**
 * The trips of a `*.ground_truth.json` (`{"data": [trip, ...]}`, each trip a GeoJSON FeatureCollection as
 * `/timeline/getTrips` answers) or of that answer itself (`{"timeline": [...]}`). The trip's `start_ts`/`end_ts`
 * are on the collection's `properties`; a collection without them is searched for its `feature_type: "trip"`
 * feature. Throws ImportFormatError for any other shape: a ground truth that cannot be read must not compare as
 * "no trips".
 */
export function emissionTripsFromGroundTruth(json: unknown): TripSpan[] {
  const trips = isPlainObject(json) ? (json['data'] ?? json['timeline']) : undefined;
  if (!Array.isArray(trips)) {
    throw new ImportFormatError('ground truth is not {"data": [trip, ...]}', { details: {} });
  }
  return trips.map((trip, index) => {
    const span = isPlainObject(trip) ? groundTruthSpan(trip) : undefined;
    if (!span) {
      throw new ImportFormatError(`ground truth trip ${index} has no numeric start_ts and end_ts`, {
        details: { element: index },
      });
    }
    return span;
  });
}

function groundTruthSpan(trip: Record<string, unknown>): TripSpan | undefined {
  const own = isPlainObject(trip['properties']) ? spanOf(trip['properties']) : undefined;
  if (own) return own;
  const features = Array.isArray(trip['features']) ? trip['features'] : [];
  for (const f of features) {
    const props = isPlainObject(f) && isPlainObject(f['properties']) ? f['properties'] : undefined;
    if (props && props['feature_type'] === 'trip') {
      const span = spanOf(props);
      if (span) return span;
    }
  }
  return undefined;
}
