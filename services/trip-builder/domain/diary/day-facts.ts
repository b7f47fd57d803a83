import type { SectionFact } from '../../../../shared/tables/index.js';
import { predictedModeOf } from '../modes/index.js';
import type { BuiltTrip } from '../timeline/build-trips.js';
import { type CompositeTripEntry, isLabeled, isTripComposite } from './composite-trip.js';
import { type TripLabelFact, tripLabelFacts } from './trip-label-facts.js';

/**
 * A trip's rows of the section metrics, by the inferred mode (WALKING, CAR, BUS…): e-mission's metrics summarise
 * `analysis/inferred_section` unless configured otherwise.
 */
export function sectionFacts(userId: string, trip: BuiltTrip): SectionFact[] {
  return trip.sections.map((s) => ({
    userId,
    startTs: s.startTs,
    timeZone: trip.timeZone,
    mode: predictedModeOf(s),
    distance: s.distance,
    duration: s.duration,
  }));
}

/** What is counted from one trip-local date's composite trips: the label counts, the label metrics' rows, its end. */
export interface CompositeDayFacts {
  totalTrips: number;
  labeledTrips: number;
  labelFacts: TripLabelFact[];
  /** End of the day's last trip (Unix seconds); undefined when the day has none. */
  lastTripEnd: number | undefined;
  /** That end in the trip's local time with its offset (`end_fmt_time`), when the trip carries it. */
  lastTripEndLocal: string | undefined;
}

export function compositeDayFacts(composites: readonly CompositeTripEntry[]): CompositeDayFacts {
  const trips = composites.filter(isTripComposite);
  const last = trips.reduce<CompositeTripEntry | undefined>(
    (latest, c) => (latest === undefined || Number(c.data['end_ts']) > Number(latest.data['end_ts']) ? c : latest),
    undefined,
  );
  const local = last?.data['end_fmt_time'];
  return {
    totalTrips: trips.length,
    labeledTrips: composites.filter(isLabeled).length,
    labelFacts: tripLabelFacts(composites),
    lastTripEnd: last === undefined ? undefined : Number(last.data['end_ts']),
    lastTripEndLocal: typeof local === 'string' ? local : undefined,
  };
}
