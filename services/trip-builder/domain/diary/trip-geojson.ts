import { sensedModeName } from '../../../../shared/events/emission-enums.js';
import { isoLocal, localDate } from '../../../../shared/time/local-time.js';
import type { LonLat } from '../../../../shared/geo/geo.js';
import type { BuiltTrip } from '../timeline/build-trips.js';
import type { CleanedSection } from '../cleaning/cleaned-trip.js';
import { derivedObjectId } from '../../../../shared/ids/entry-identity.js';

export const point = (loc: LonLat) => ({ type: 'Point', coordinates: [loc[0], loc[1]] });
export const oid = (id: string) => ({ $oid: id });

/** `<prefix>_ts`, `<prefix>_local_dt` and `<prefix>_fmt_time` of a time, as every e-mission object carries them. */
export function timeFields(prefix: string, ts: number, timeZone: string): Record<string, unknown> {
  return {
    [`${prefix}_ts`]: ts,
    [`${prefix}_local_dt`]: localDate(ts, timeZone),
    [`${prefix}_fmt_time`]: isoLocal(ts, timeZone),
  };
}

export interface TripIds {
  trip: string;
  startPlace: string;
  endPlace: string;
}

/** Ids of a trip and the places around it; a place is named after the trip it precedes or follows. */
export function tripIds(userId: string, trip: BuiltTrip, previous: BuiltTrip | undefined): TripIds {
  return {
    trip: derivedObjectId(userId, trip.untracked ? 'untracked' : 'trip', trip.rawStartTs),
    startPlace: previous
      ? derivedObjectId(userId, 'place', previous.rawStartTs)
      : derivedObjectId(userId, 'first-place', trip.rawStartTs),
    endPlace: derivedObjectId(userId, 'place', trip.rawStartTs),
  };
}

/** A section's id, shared by the GeoJSON and the composite trip. */
export function sectionId(userId: string, section: CleanedSection): string {
  return derivedObjectId(userId, 'section', section.startTs);
}

/** What a trip says of itself in both phone shapes: times, ends, size and the places around it. */
export function tripFields(trip: BuiltTrip, ids: TripIds): Record<string, unknown> {
  return {
    source: trip.source,
    ...timeFields('start', trip.startTs, trip.timeZone),
    ...timeFields('end', trip.endTs, trip.timeZone),
    start_loc: point(trip.startLoc),
    end_loc: point(trip.endLoc),
    duration: trip.duration,
    distance: trip.distance,
    start_place: oid(ids.startPlace),
    end_place: oid(ids.endPlace),
  };
}

/** The stay at the place a trip leaves: entered at the end of `previous` (unknown for the first trip). */
export function startPlaceStay(
  userId: string,
  trip: BuiltTrip,
  previous: BuiltTrip | undefined,
  ids: TripIds,
): Record<string, unknown> {
  return {
    source: trip.source,
    ...(previous
      ? {
          ...timeFields('enter', previous.endTs, previous.timeZone),
          ending_trip: oid(tripIds(userId, previous, undefined).trip),
          duration: trip.startTs - previous.endTs,
        }
      : {}),
    ...timeFields('exit', trip.startTs, trip.timeZone),
    starting_trip: oid(ids.trip),
  };
}

/** The stay at the place a trip reaches: left at the start of `next` (open while there is none). */
export function endPlaceStay(
  trip: BuiltTrip,
  next: BuiltTrip | undefined,
  ids: TripIds,
  nextIds: TripIds | undefined,
): Record<string, unknown> {
  return {
    source: trip.source,
    ...timeFields('enter', trip.endTs, trip.timeZone),
    ending_trip: oid(ids.trip),
    ...(next && nextIds
      ? {
          ...timeFields('exit', next.startTs, next.timeZone),
          duration: next.startTs - trip.endTs,
          starting_trip: oid(nextIds.trip),
        }
      : {}),
  };
}

/**
 * One trip in the shape of e-mission's `/timeline/getTrips` and `diary/trips-<date>` documents (§5): a
 * FeatureCollection holding the start place, the end place, one Feature per stop, and one FeatureCollection per
 * section. `previous` and `next` are the user's neighbouring trips, which bound the places' stays.
 */
export function tripToGeojson(
  userId: string,
  trip: BuiltTrip,
  previous: BuiltTrip | undefined,
  next: BuiltTrip | undefined,
) {
  const tz = trip.timeZone;
  const ids = tripIds(userId, trip, previous);
  const sectionIds = trip.sections.map((s) => sectionId(userId, s));
  const stopIds = trip.stops.map((s) => derivedObjectId(userId, 'stop', s.enterTs));
  const nextIds = next ? tripIds(userId, next, trip) : undefined;

  const startPlace = {
    type: 'Feature',
    id: ids.startPlace,
    geometry: point(previous ? previous.endLoc : trip.startLoc),
    properties: { ...startPlaceStay(userId, trip, previous, ids), feature_type: 'start_place' },
  };
  const endPlace = {
    type: 'Feature',
    id: ids.endPlace,
    geometry: point(trip.endLoc),
    properties: { ...endPlaceStay(trip, next, ids, nextIds), feature_type: 'end_place' },
  };
  const stops = trip.stops.map((s, i) => ({
    type: 'Feature',
    id: stopIds[i],
    geometry: { type: 'LineString', coordinates: [[...s.enterLoc], [...s.exitLoc]] },
    properties: {
      trip_id: oid(ids.trip),
      source: 'SmoothedHighConfidenceMotion',
      ending_section: oid(sectionIds[i]!),
      starting_section: oid(sectionIds[i + 1]!),
      ...timeFields('enter', s.enterTs, tz),
      enter_loc: point(s.enterLoc),
      ...timeFields('exit', s.exitTs, tz),
      exit_loc: point(s.exitLoc),
      duration: s.duration,
      distance: s.distance,
      feature_type: 'stop',
    },
  }));
  const sections = trip.sections.map((s, i) => ({
    type: 'FeatureCollection',
    features: [
      {
        type: 'Feature',
        id: sectionIds[i],
        geometry: { type: 'LineString', coordinates: s.coordinates.map((c) => [c[0], c[1]]) },
        properties: {
          times: s.times,
          timestamps: s.times.map((t) => Math.round(t * 1000)),
          source: 'SmoothedHighConfidenceMotion',
          trip_id: oid(ids.trip),
          ...timeFields('start', s.startTs, tz),
          ...timeFields('end', s.endTs, tz),
          duration: s.duration,
          speeds: s.speeds,
          distances: s.distances,
          distance: s.distance,
          sensed_mode: `MotionTypes.${sensedModeName(s.mode)}`,
          ...(i > 0 ? { start_stop: oid(stopIds[i - 1]!) } : {}),
          ...(i < trip.stops.length ? { end_stop: oid(stopIds[i]!) } : {}),
          feature_type: 'section',
        },
      },
    ],
  }));
  return {
    type: 'FeatureCollection',
    id: ids.trip,
    features: [startPlace, endPlace, ...stops, ...sections],
    properties: { ...tripFields(trip, ids), feature_type: 'trip' },
  };
}

/** The trip-local date a trip belongs to ("what the user experienced"): its start in its own time zone. */
export function tripLocalDate(trip: Pick<BuiltTrip, 'startTs' | 'timeZone'>): string {
  return (isoLocal(trip.startTs, trip.timeZone) ?? new Date(trip.startTs * 1000).toISOString()).slice(0, 10);
}
