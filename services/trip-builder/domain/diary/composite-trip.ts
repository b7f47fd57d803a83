import { sensedModeName } from '../../../../shared/events/emission-enums.js';
import { isoLocal, localDate } from '../../../../shared/time/local-time.js';
import type { ElementLabels } from '../labels/index.js';
import type { CleanedSection } from '../cleaning/cleaned-trip.js';
import { predictedModeOf, predictedModeValue } from '../modes/section-modes.js';
import type { BuiltTrip } from '../timeline/build-trips.js';
import { bsonUuid, derivedObjectId } from '../../../../shared/ids/entry-identity.js';
import {
  endPlaceStay,
  oid,
  point,
  sectionId,
  startPlaceStay,
  timeFields,
  tripFields,
  tripIds,
} from './trip-geojson.js';

/** e-mission's section summary: distance, duration and count of the sections by mode name. */
function sectionSummary(sections: readonly (readonly [string, CleanedSection])[]) {
  const summary = {
    distance: {} as Record<string, number>,
    duration: {} as Record<string, number>,
    count: {} as Record<string, number>,
  };
  for (const [mode, s] of sections) {
    summary.distance[mode] = (summary.distance[mode] ?? 0) + s.distance;
    summary.duration[mode] = (summary.duration[mode] ?? 0) + s.duration;
    summary.count[mode] = (summary.count[mode] ?? 0) + 1;
  }
  return summary;
}

/** An inferred section's id: its own entry beside the cleaned section it copies. */
export function inferredSectionId(userId: string, section: CleanedSection): string {
  return derivedObjectId(userId, 'inferred-section', section.startTs);
}

/**
 * One trip as the current phone app reads it (`find_entries` of `analysis/composite_trip` on `data.end_ts`,
 * emission-client.md §5.3): an entry whose data holds the trip, its places, its sections and its locations, each
 * nested object itself a full entry (`_id`, `metadata.key`, `data`) because the app unpacks them the same way.
 *
 * The trip and both its places carry what the user said about them (`user_input`, `additions`: see
 * domain/labels). Its sections are the inferred sections (modes from domain/modes); there is no label-inference
 * model yet, so `inferred_labels` is empty and `expectation.to_label` is true, as e-mission configures it without one.
 */
export function tripToCompositeEntry(userId: string, trip: BuiltTrip, around: MoveContext = {}) {
  const { entry, ids, startPlace, endPlace, labels } = compositeParts(userId, trip, around);
  const tz = trip.timeZone;
  const cleanedSummary = sectionSummary(trip.sections.map((s) => [sensedModeName(s.mode), s]));
  const inferredSummary = sectionSummary(trip.sections.map((s) => [predictedModeOf(s), s]));
  // The app draws and names the inferred sections: the cleaned section with the predicted mode in `sensed_mode`
  // (a PredictedModeTypes number) and `sensed_mode_str`, pointing back at the cleaned section.
  const sections = trip.sections.map((s) => {
    const mode = predictedModeOf(s);
    return entry(inferredSectionId(userId, s), 'analysis/inferred_section', {
      trip_id: oid(ids.trip),
      source: 'SmoothedHighConfidenceMotion',
      ...timeFields('start', s.startTs, tz),
      ...timeFields('end', s.endTs, tz),
      start_loc: point(s.startLoc),
      end_loc: point(s.endLoc),
      duration: s.duration,
      distance: s.distance,
      speeds: s.speeds,
      distances: s.distances,
      sensed_mode: predictedModeValue(mode),
      sensed_mode_str: mode,
      cleaned_section: oid(sectionId(userId, s)),
      ble_sensed_mode: null,
    });
  });
  const locations = trip.sections.flatMap((s) => {
    const section = oid(sectionId(userId, s));
    return s.coordinates.map((c, i) => {
      const ts = s.times[i] as number;
      return entry(derivedObjectId(userId, 'location', s.startTs, i), 'analysis/recreated_location', {
        loc: point(c),
        latitude: c[1],
        longitude: c[0],
        ts,
        local_dt: localDate(ts, tz),
        fmt_time: isoLocal(ts, tz),
        speed: s.speeds[i] ?? 0,
        distance: s.distances[i] ?? 0,
        mode: s.mode,
        section,
        idx: i,
      });
    });
  });

  return entry(
    ids.trip,
    'analysis/composite_trip',
    {
      ...tripFields(trip, ids),
      start_confirmed_place: startPlace,
      end_confirmed_place: endPlace,
      // One build stands for e-mission's raw, cleaned, expected, inferred and confirmed stages, under one id.
      raw_trip: oid(ids.trip),
      cleaned_trip: oid(ids.trip),
      inferred_trip: oid(ids.trip),
      expected_trip: oid(ids.trip),
      confirmed_trip: oid(ids.trip),
      sections,
      locations,
      cleaned_section_summary: cleanedSummary,
      inferred_section_summary: inferredSummary,
      ...labels.trip,
      inferred_labels: [],
      confidence_threshold: 0,
      expectation: { to_label: true },
    },
    'analysis/confirmed_trip',
  );
}

/**
 * An untracked period (`untrackedBetween`) as the app reads it: a composite whose origin is
 * `analysis/confirmed_untracked`, with its places and labels like a trip but no sections and no locations. The app
 * shows it as a gap the user may still label.
 */
export function untrackedToCompositeEntry(userId: string, period: BuiltTrip, around: MoveContext = {}) {
  const { entry, ids, startPlace, endPlace, labels } = compositeParts(userId, period, around);
  return entry(
    ids.trip,
    'analysis/composite_trip',
    {
      ...tripFields(period, ids),
      ...labels.trip,
      locations: [],
      confirmed_trip: oid(ids.trip),
      start_confirmed_place: startPlace,
      end_confirmed_place: endPlace,
      sections: [],
    },
    'analysis/confirmed_untracked',
  );
}

/** What a trip's and an untracked period's composites share: the entry shape, the ids and both confirmed places. */
function compositeParts(userId: string, move: BuiltTrip, { previous, next, labels = NO_LABELS }: MoveContext) {
  const tz = move.timeZone;
  const ids = tripIds(userId, move, previous);
  const nextIds = next ? tripIds(userId, next, move) : undefined;
  const userUuid = bsonUuid(userId);
  // The entry's write time is the move's end, not the clock: a rebuild of the same data then gives the same entry.
  const entry = (id: string, key: string, data: Record<string, unknown>, originKey = key) => ({
    _id: oid(id),
    user_id: userUuid,
    metadata: {
      key,
      origin_key: originKey,
      platform: 'server',
      type: 'analysis-result',
      time_zone: tz,
      write_ts: move.endTs,
      write_local_dt: localDate(move.endTs, tz),
      write_fmt_time: isoLocal(move.endTs, tz),
    },
    data,
  });
  const startPlace = entry(ids.startPlace, 'analysis/confirmed_place', {
    location: point(previous ? previous.endLoc : move.startLoc),
    ...startPlaceStay(userId, move, previous, ids),
    ...labels.startPlace,
  });
  const endPlace = entry(ids.endPlace, 'analysis/confirmed_place', {
    location: point(move.endLoc),
    ...endPlaceStay(move, next, ids, nextIds),
    ...labels.endPlace,
  });
  return { entry, ids, startPlace, endPlace, labels };
}

/** What a composite shows of a move's surroundings: the moves before and after it (its places' stays), its labels. */
export interface MoveContext {
  previous?: BuiltTrip | undefined;
  next?: BuiltTrip | undefined;
  labels?: TripLabels;
}

/** What the user said about a trip and the places it leaves and reaches. */
export interface TripLabels {
  trip: ElementLabels;
  startPlace: ElementLabels;
  endPlace: ElementLabels;
}

const NONE: ElementLabels = { user_input: {}, additions: [] };
const NO_LABELS: TripLabels = { trip: NONE, startPlace: NONE, endPlace: NONE };

export type CompositeTripEntry = ReturnType<typeof tripToCompositeEntry> | ReturnType<typeof untrackedToCompositeEntry>;

/** A composite of a trip, not of an untracked period: only trips are counted and labelled in the metrics. */
export function isTripComposite(composite: CompositeTripEntry): boolean {
  return composite.metadata.origin_key === 'analysis/confirmed_trip';
}

/** A trip the user has labelled: e-mission's `labeled_trips` counts composite trips whose `user_input` is not empty. */
export function isLabeled(composite: CompositeTripEntry): boolean {
  if (!isTripComposite(composite)) return false;
  const input = composite.data['user_input'];
  return input !== null && typeof input === 'object' && Object.keys(input).length > 0;
}
