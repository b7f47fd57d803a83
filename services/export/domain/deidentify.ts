import { haversine } from '../../../shared/geo/geo.js';
import { type CompositeTrip, isFiniteNumber, locationLonLat, lonLatOf } from './composite-trip.js';

/** A position in degrees, as a researcher export names it. */
export interface LatLon {
  lat: number;
  lon: number;
}

/**
 * A test for "is this point within `radiusM` metres of one of these places" (great-circle distance), to drop the
 * points of a researcher export that would reveal where a participant lives or works.
 */
export function frequentPlaceFilter(places: readonly LatLon[], radiusM: number): (lat: number, lon: number) => boolean {
  const centers = places.map((p) => [p.lon, p.lat] as const);
  return (lat, lon) => centers.some((center) => haversine(center, [lon, lat]) <= radiusM);
}

/** A cluster of trip ends: its center (the mean of its members) and how many ends it holds. */
export interface PlaceCluster extends LatLon {
  members: number;
}

/**
 * The `n` places a user starts or ends trips at most often (usually home and work), found by greedy clustering of
 * trip start and end points: each point joins the nearest cluster whose center is within `clusterRadiusM`, or
 * starts a new one. Greedy and order-dependent, but a participant's home collects far more ends than any other
 * place, and the result only has to be good enough to cut points around it. Ties keep the earlier cluster.
 */
export function mostFrequentPlaces(placeCenters: Iterable<LatLon>, n = 2, clusterRadiusM = 100): PlaceCluster[] {
  const clusters: PlaceCluster[] = [];
  for (const point of placeCenters) {
    if (!Number.isFinite(point.lat) || !Number.isFinite(point.lon)) continue;
    const nearest = nearestCluster(clusters, point, clusterRadiusM);
    if (nearest === undefined) {
      clusters.push({ lat: point.lat, lon: point.lon, members: 1 });
    } else {
      nearest.members += 1;
      nearest.lat += (point.lat - nearest.lat) / nearest.members;
      nearest.lon += (point.lon - nearest.lon) / nearest.members;
    }
  }
  // Array sort is stable: among equals, the cluster found first comes first.
  return clusters.sort((a, b) => b.members - a.members).slice(0, Math.max(0, n));
}

function nearestCluster(clusters: PlaceCluster[], point: LatLon, radiusM: number): PlaceCluster | undefined {
  let best: PlaceCluster | undefined;
  let bestDistance = radiusM;
  for (const cluster of clusters) {
    const distance = haversine([cluster.lon, cluster.lat], [point.lon, point.lat]);
    if (distance <= bestDistance) {
      best = cluster;
      bestDistance = distance;
    }
  }
  return best;
}

/** A test built by `frequentPlaceFilter`: is the point (degrees) near one of the places? */
export type NearTest = (lat: number, lon: number) => boolean;

/**
 * Where each trip starts and ends: the points `mostFrequentPlaces` clusters. A trip without a usable start or end
 * adds nothing for it.
 */
export function* tripEnds(trips: Iterable<CompositeTrip>): Generator<LatLon> {
  for (const trip of trips) {
    for (const point of [trip.data.start_loc, trip.data.end_loc]) {
      const lonLat = lonLatOf(point);
      if (lonLat) yield { lat: lonLat[1], lon: lonLat[0] };
    }
  }
}

/**
 * The trip without the points that lie near a frequent place: its locations there, and its start or end when that
 * is where it lies. Only what the formatters write is touched (locations, `start_loc`, `end_loc`); the rest is
 * shared with the input, which is left unchanged. A trip with nothing near stays the same object.
 */
export function withoutNearPoints(trip: CompositeTrip, isNear: NearTest): CompositeTrip {
  const near = (lonLat: readonly [number, number] | undefined) => lonLat !== undefined && isNear(lonLat[1], lonLat[0]);
  const { data } = trip;
  const locations = data.locations?.filter((l) => !near(locationLonLat(l)));
  const dropStart = near(lonLatOf(data.start_loc));
  const dropEnd = near(lonLatOf(data.end_loc));
  if (!dropStart && !dropEnd && locations?.length === data.locations?.length) return trip;
  const { start_loc, end_loc, ...rest } = data;
  return {
    ...trip,
    data: {
      ...rest,
      ...(dropStart || start_loc === undefined ? {} : { start_loc }),
      ...(dropEnd || end_loc === undefined ? {} : { end_loc }),
      ...(locations === undefined ? {} : { locations }),
    },
  };
}

/** The raw location keys: each entry is one fix of where the phone was. */
const LOCATION_KEYS: ReadonlySet<string> = new Set(['background/location', 'background/filtered_location']);

/** The parts of a raw timeseries entry that say where it was taken. */
export interface RawEntry {
  metadata?: { key?: unknown };
  data?: { latitude?: unknown; longitude?: unknown; loc?: { coordinates?: unknown } };
}

/**
 * Whether a raw entry is a location fix near a frequent place, to be left out of a de-identified export. Its
 * position is its GeoJSON `loc`, else its `latitude`/`longitude` (e-mission stores both); a fix without either says
 * nothing of where it was and is kept, as is every entry of another key.
 */
export function isLocationNear(entry: RawEntry, isNear: NearTest): boolean {
  if (typeof entry.metadata?.key !== 'string' || !LOCATION_KEYS.has(entry.metadata.key)) return false;
  const data = entry.data ?? {};
  const [lon, lat] = Array.isArray(data.loc?.coordinates) ? (data.loc.coordinates as unknown[]) : [];
  if (isFiniteNumber(lat) && isFiniteNumber(lon)) return isNear(lat, lon);
  return isFiniteNumber(data.latitude) && isFiniteNumber(data.longitude) && isNear(data.latitude, data.longitude);
}
