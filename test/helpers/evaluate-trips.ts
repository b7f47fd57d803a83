import { haversine, type LonLat } from '../../shared/geo/geo.js';
import { sensedModeName as modeName } from '../../shared/events/emission-enums.js';
import type { BuiltTrip } from '../../services/trip-builder/domain/timeline/build-trips.js';
import type { GroundTruthTrip } from './real-days.js';

/** The acceptance: a trip matches when its start and end are within 60 s and 100 m of a ground-truth trip. */
export const MATCH_TIME_S = 60;
export const MATCH_DISTANCE_M = 100;

export interface ReferenceTrip {
  startTs: number;
  endTs: number;
  startLoc: LonLat;
  endLoc: LonLat;
  modes: string[];
}

/** A trip of e-mission's, with what exact comparisons read beside the match. */
export interface EmissionTrip extends ReferenceTrip {
  distance: number;
  /** Its start as e-mission formats it, to name it in messages. */
  label: string;
}

/** One of e-mission's ground-truth trips (getTrips' GeoJSON: sections as FeatureCollections, `MotionTypes.X` modes). */
export function fromGroundTruth(t: GroundTruthTrip): EmissionTrip {
  return {
    startTs: t.properties['start_ts'],
    endTs: t.properties['end_ts'],
    startLoc: t.properties['start_loc'].coordinates,
    endLoc: t.properties['end_loc'].coordinates,
    distance: t.properties['distance'],
    label: t.properties['start_fmt_time'],
    modes: t.features
      .filter((f) => f.type === 'FeatureCollection')
      .map((f) => String(f.features[0].properties.sensed_mode).split('.')[1]!),
  };
}

/** The parts of one of e-mission's composite trips (an `analysis/confirmed_trip` of 2023) a comparison reads. */
export interface EmissionComposite {
  metadata: { origin_key: string };
  data: {
    start_ts: number;
    end_ts: number;
    start_loc: { coordinates: LonLat };
    end_loc: { coordinates: LonLat };
    distance: number;
    start_fmt_time: string;
    sections: { data: { sensed_mode: number; start_ts: number; end_ts: number } }[];
  };
}

export function fromComposite(c: EmissionComposite): EmissionTrip {
  return {
    startTs: c.data.start_ts,
    endTs: c.data.end_ts,
    startLoc: c.data.start_loc.coordinates,
    endLoc: c.data.end_loc.coordinates,
    distance: c.data.distance,
    label: c.data.start_fmt_time,
    modes: c.data.sections.map((s) => modeName(s.data.sensed_mode)),
  };
}

export interface DayScore {
  expected: number;
  returned: number;
  /** Ground-truth trips with a matching returned trip. */
  matchedExpected: number;
  /** Returned trips that match a ground-truth trip. */
  matchedReturned: number;
  /** Matched trips whose section count and sensed modes equal the ground truth's. */
  sameSections: number;
}

export function matches(
  t: { startTs: number; endTs: number; startLoc: LonLat; endLoc: LonLat },
  r: ReferenceTrip,
): boolean {
  return (
    Math.abs(t.startTs - r.startTs) <= MATCH_TIME_S &&
    Math.abs(t.endTs - r.endTs) <= MATCH_TIME_S &&
    haversine(t.startLoc, r.startLoc) <= MATCH_DISTANCE_M &&
    haversine(t.endLoc, r.endLoc) <= MATCH_DISTANCE_M
  );
}

export function scoreDay(
  built: readonly (BuiltTrip & { modeNames: string[] })[],
  expected: readonly ReferenceTrip[],
): DayScore {
  let matchedExpected = 0;
  let sameSections = 0;
  for (const r of expected) {
    const m = built.find((t) => matches(t, r));
    if (!m) continue;
    matchedExpected++;
    if (m.modeNames.length === r.modes.length && m.modeNames.every((x, i) => x === r.modes[i])) sameSections++;
  }
  const matchedReturned = built.filter((t) => expected.some((r) => matches(t, r))).length;
  return { expected: expected.length, returned: built.length, matchedExpected, matchedReturned, sameSections };
}
