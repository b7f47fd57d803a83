import type { LonLat } from '../../../../shared/geo/geo.js';

/** OSM tags, key to value. */
export type OsmTags = Readonly<Record<string, string>>;

/** A public-transport route (an OSM `relation[type=route]`) that calls at a stop. */
export interface TransitRoute {
  /** The relation's OSM id. */
  id: number;
  /** Its `route` tag: bus, train, subway, tram, light_rail, ferry, … */
  route: string;
  network?: string;
  ref?: string;
  name?: string;
}

/**
 * A place where people board public transport, as OpenStreetMap maps it: a bus stop, a station, a platform or stop
 * position (`public_transport=*`), or a station drawn as an area (a way, placed at the centroid of its nodes).
 */
export interface TransitStop {
  osmType: 'node' | 'way';
  id: number;
  lon: number;
  lat: number;
  /** Only the tags the match reads (see STOP_TAG_KEYS). */
  tags: OsmTags;
  /** The route relations that list this stop as a node member, by ascending relation id. Ways have none. */
  routes: readonly TransitRoute[];
}

/** Where the rule engine finds the public-transport stops around a section's ends. */
export interface TransitStops {
  /** The stops inside the search box around a point (see stopSearchBox), nodes before ways, by ascending id. */
  stopsNear(point: LonLat): Promise<readonly TransitStop[]>;
}

/** The stop tags the match reads, plus names for people reading the data. Everything else is dropped on import. */
export const STOP_TAG_KEYS: readonly string[] = [
  'highway',
  'railway',
  'public_transport',
  'subway',
  'train',
  'tram',
  'light_rail',
  'route_ref',
  'network',
  'operator',
  'name',
];

/** The route-relation tags kept on import. */
export const ROUTE_TAG_KEYS: readonly string[] = ['type', 'route', 'network', 'ref', 'name'];

/** e-mission's `section.startStopRadius`: how far from a section's start or end a stop may be (m). */
export const STOP_SEARCH_RADIUS_M = 150;

/**
 * e-mission turns metres into degrees with one factor for both axes (90° of latitude = 10,001.965729 km), so its
 * box is ±0.00135° at 150 m: about 150 m north–south but narrower east–west away from the equator. Kept as is, so
 * the same stops match.
 */
const DEGREES_PER_METRE = 90 / 10_001_965.729;

export interface SearchBox {
  minLon: number;
  minLat: number;
  maxLon: number;
  maxLat: number;
}

/** The box (edges included) in which e-mission's Overpass query looks for stops around a point. */
export function stopSearchBox(point: LonLat, radiusM: number = STOP_SEARCH_RADIUS_M): SearchBox {
  const delta = radiusM * DEGREES_PER_METRE;
  const [lon, lat] = point;
  return { minLon: lon - delta, minLat: lat - delta, maxLon: lon + delta, maxLat: lat + delta };
}

/** Overpass lists nodes before ways, each by ascending id; the matches, and so the tie-break, follow that order. */
export function compareStops(a: TransitStop, b: TransitStop): number {
  if (a.osmType !== b.osmType) return a.osmType === 'node' ? -1 : 1;
  return a.id - b.id;
}
