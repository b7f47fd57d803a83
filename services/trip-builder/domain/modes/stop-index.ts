import KDBush from 'kdbush';
import type { LonLat } from '../../../../shared/geo/geo.js';
import type { TransitElement } from './osm-elements.js';
import { type OsmSource, readTransitElements } from './osm-reader.js';
import {
  compareStops,
  STOP_SEARCH_RADIUS_M,
  stopSearchBox,
  type TransitRoute,
  type TransitStop,
  type TransitStops,
} from './transit-stops.js';

/** Stops in memory, found by a static k-d tree over their coordinates. */
export interface TransitStopIndex extends TransitStops {
  /** The same answer as stopsNear, without a promise, for code that holds the whole index anyway. */
  findStopsNear(point: LonLat): TransitStop[];
  /** How many stops the index holds. */
  readonly size: number;
}

export interface TransitStopIndexOptions {
  /** Half the side of the search box, in e-mission's metres (see stopSearchBox). */
  radiusM?: number;
}

/**
 * An extract's stops, each node with the route relations that list it (by ascending relation id); a route listing
 * no stop is dropped, and an element seen twice counts once. What the index holds and what an import stores.
 */
export function stopsWithRoutes(elements: Iterable<TransitElement>): TransitStop[] {
  const stopsByKey = new Map<string, TransitStop>();
  const routesByNode = new Map<number, TransitRoute[]>();
  const seenRoutes = new Set<number>();
  for (const element of elements) {
    if (element.kind === 'stop') {
      stopsByKey.set(`${element.osmType}/${element.id}`, { ...element, routes: [] });
    } else if (!seenRoutes.has(element.id)) {
      seenRoutes.add(element.id);
      const route = routeOf(element.id, element.tags);
      for (const nodeId of new Set(element.nodeIds)) {
        const list = routesByNode.get(nodeId);
        if (list) list.push(route);
        else routesByNode.set(nodeId, [route]);
      }
    }
  }
  return [...stopsByKey.values()].map((stop) => {
    if (stop.osmType !== 'node') return stop;
    const routes = [...(routesByNode.get(stop.id) ?? [])].sort((a, b) => a.id - b.id);
    return { ...stop, routes };
  });
}

/** Builds the index from an extract's transit elements (readTransitElements gives them). */
export function createTransitStopIndex(
  elements: Iterable<TransitElement>,
  { radiusM = STOP_SEARCH_RADIUS_M }: TransitStopIndexOptions = {},
): TransitStopIndex {
  const stops = stopsWithRoutes(elements);
  const tree = new KDBush(stops.length);
  for (const stop of stops) tree.add(stop.lon, stop.lat);
  tree.finish();

  const findStopsNear = (point: LonLat): TransitStop[] => {
    const box = stopSearchBox(point, radiusM);
    return tree
      .range(box.minLon, box.minLat, box.maxLon, box.maxLat)
      .map((i) => stops[i]!)
      .sort(compareStops);
  };
  return {
    findStopsNear,
    stopsNear: async (point) => findStopsNear(point),
    size: stops.length,
  };
}

/** Reads an OSM extract (readTransitElements) and indexes its stops in one go. */
export async function indexOsmExtract(
  source: OsmSource,
  options: TransitStopIndexOptions = {},
): Promise<TransitStopIndex> {
  const elements: TransitElement[] = [];
  for await (const element of readTransitElements(source)) elements.push(element);
  return createTransitStopIndex(elements, options);
}

function routeOf(id: number, tags: Readonly<Record<string, string>>): TransitRoute {
  const route: TransitRoute = { id, route: tags.route ?? '' };
  if (tags.network !== undefined) route.network = tags.network;
  if (tags.ref !== undefined) route.ref = tags.ref;
  if (tags.name !== undefined) route.name = tags.name;
  return route;
}
