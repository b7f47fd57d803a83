import {
  type CompositeTrip,
  flattenLabels,
  isUntracked,
  locationLonLat,
  locationsInTimeOrder,
  lonLatOf,
  type LonLat,
  sectionMode,
} from './composite-trip.js';

/** RFC 7946 geometries a trip can have: its path, a lone position, or nothing known. */
export type TripGeometry =
  { type: 'LineString'; coordinates: LonLat[] } | { type: 'Point'; coordinates: LonLat } | null;

export interface TripFeature {
  type: 'Feature';
  id: string;
  geometry: TripGeometry;
  properties: {
    trip_id: string;
    /** An `analysis/confirmed_untracked` period: its line joins where data stopped and resumed, not a path. */
    untracked: boolean;
    start_ts: number;
    end_ts: number;
    start_fmt_time: string | null;
    end_fmt_time: string | null;
    distance_m: number | null;
    duration_s: number | null;
    sections: { mode: string; start_ts: number | null; end_ts: number | null; distance_m: number | null }[];
    labels: Record<string, string>;
    notes_count: number;
  };
}

/**
 * Composite trips as one GeoJSON FeatureCollection (RFC 7946), yielded in chunks as the trips arrive: the opening,
 * one Feature per trip, the closing. Only one trip is held at a time, so a user's whole history can be streamed.
 * Untracked periods are Features too (`properties.untracked: true`), because a map of a day should show its gaps.
 */
export async function* geojsonFeatureCollection(trips: AsyncIterable<CompositeTrip>): AsyncGenerator<string> {
  yield '{"type":"FeatureCollection","features":[\n';
  let separator = '';
  for await (const trip of trips) {
    yield `${separator}${JSON.stringify(tripFeature(trip))}`;
    separator = ',\n';
  }
  yield '\n]}\n';
}

/** One trip as a Feature whose id is the trip's `_id.$oid`. */
export function tripFeature(trip: CompositeTrip): TripFeature {
  const { data } = trip;
  return {
    type: 'Feature',
    id: trip._id.$oid,
    geometry: tripGeometry(trip),
    properties: {
      trip_id: trip._id.$oid,
      untracked: isUntracked(trip),
      start_ts: data.start_ts,
      end_ts: data.end_ts,
      start_fmt_time: data.start_fmt_time ?? null,
      end_fmt_time: data.end_fmt_time ?? null,
      distance_m: data.distance ?? null,
      duration_s: data.duration ?? null,
      sections: (data.sections ?? []).map((s) => ({
        mode: sectionMode(s),
        start_ts: s.data?.start_ts ?? null,
        end_ts: s.data?.end_ts ?? null,
        distance_m: s.data?.distance ?? null,
      })),
      labels: flattenLabels(data.user_input),
      notes_count: data.additions?.length ?? 0,
    },
  };
}

/**
 * The trip's path: its locations in time order. With fewer than two of them (an untracked period has none) the
 * line goes from the trip's start to its end, which is all that is known; a single known position is a Point, and
 * nothing known is a null geometry, which RFC 7946 allows for a Feature.
 */
export function tripGeometry(trip: CompositeTrip): TripGeometry {
  const path = locationsInTimeOrder(trip)
    .map(locationLonLat)
    .filter((p) => p !== undefined);
  if (path.length >= 2) return { type: 'LineString', coordinates: path };
  const start = lonLatOf(trip.data.start_loc);
  const end = lonLatOf(trip.data.end_loc);
  if (start && end) return { type: 'LineString', coordinates: [start, end] };
  const only = path[0] ?? start ?? end;
  return only ? { type: 'Point', coordinates: only } : null;
}
