import {
  isRouteRelation,
  isStationWay,
  isStopNode,
  type OsmElement,
  type OsmWay,
  pickTags,
  routeOfRelation,
  stopOfNode,
  type TransitElement,
  type TransitStopElement,
} from './osm-elements.js';
import { parseOsmPbf, type PbfTagFilter } from './osm-pbf.js';
import { parseOsmXml } from './osm-xml.js';
import { ROUTE_TAG_KEYS, STOP_TAG_KEYS } from './transit-stops.js';

export type OsmFormat = 'xml' | 'pbf';

/** The format a file name says: `.osm.pbf` / `.pbf` is PBF, `.osm` / `.xml` is XML; undefined otherwise. */
export function osmFormatOf(fileName: string): OsmFormat | undefined {
  const lower = fileName.toLowerCase();
  if (lower.endsWith('.pbf')) return 'pbf';
  if (lower.endsWith('.osm') || lower.endsWith('.xml')) return 'xml';
  return undefined;
}

export interface OsmSource {
  format: OsmFormat;
  /**
   * Opens the file from its start, for example `() => fs.createReadStream(path)`. Called once, or twice when
   * stations are drawn as areas (the nodes placing them come before the ways, so a second pass fetches them).
   * Counting the bytes read here is how a caller shows progress.
   */
  open: () => AsyncIterable<Uint8Array>;
}

/** Only the tags that decide whether an element is kept, and those kept on it, are decoded on the first pass. */
const FIRST_PASS_TAGS: PbfTagFilter = {
  node: [...STOP_TAG_KEYS],
  way: [...STOP_TAG_KEYS],
  relation: [...ROUTE_TAG_KEYS],
};

/**
 * The public-transport elements of an OSM extract: stop nodes and route relations as they stream past, then the
 * station ways at the centroid of their nodes. Memory holds only those, and the coordinates of the station ways'
 * nodes, whatever the size of the extract.
 */
export async function* readTransitElements(source: OsmSource): AsyncGenerator<TransitElement> {
  const stationWays: OsmWay[] = [];
  for await (const element of decode(source, FIRST_PASS_TAGS)) {
    if (element.type === 'node' && isStopNode(element)) yield stopOfNode(element);
    else if (element.type === 'way' && isStationWay(element)) {
      stationWays.push({ ...element, tags: pickTags(element.tags, STOP_TAG_KEYS) });
    } else if (element.type === 'relation' && isRouteRelation(element)) yield routeOfRelation(element);
  }
  if (stationWays.length === 0) return;

  const wanted = new Set(stationWays.flatMap((w) => w.nodeRefs));
  const coordinates = new Map<number, readonly [number, number]>();
  for await (const element of decode(source, false)) {
    if (element.type !== 'node' || !wanted.has(element.id)) continue;
    coordinates.set(element.id, [element.lon, element.lat]);
    if (coordinates.size === wanted.size) break;
  }
  for (const way of stationWays) {
    const stop = stopAtCentroid(way, coordinates);
    if (stop) yield stop;
  }
}

function decode(source: OsmSource, withTags: PbfTagFilter | false): AsyncGenerator<OsmElement> {
  return source.format === 'pbf' ? parseOsmPbf(source.open(), withTags) : parseOsmXml(source.open());
}

/** A closed way lists its first node again at the end; each node counts once. Undefined if no node was found. */
function stopAtCentroid(
  way: OsmWay,
  coordinates: ReadonlyMap<number, readonly [number, number]>,
): TransitStopElement | undefined {
  let lon = 0;
  let lat = 0;
  let count = 0;
  for (const ref of new Set(way.nodeRefs)) {
    const at = coordinates.get(ref);
    if (!at) continue;
    lon += at[0];
    lat += at[1];
    count += 1;
  }
  if (count === 0) return undefined;
  return { kind: 'stop', osmType: 'way', id: way.id, lon: lon / count, lat: lat / count, tags: way.tags };
}
