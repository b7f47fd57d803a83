import { type OsmTags, ROUTE_TAG_KEYS, STOP_TAG_KEYS } from './transit-stops.js';

/** OpenStreetMap's three element types, as both the XML and the PBF decoders give them. */
export interface OsmNode {
  type: 'node';
  id: number;
  lat: number;
  lon: number;
  tags: OsmTags;
}

export interface OsmWay {
  type: 'way';
  id: number;
  nodeRefs: readonly number[];
  tags: OsmTags;
}

export interface OsmMember {
  type: 'node' | 'way' | 'relation';
  ref: number;
  role: string;
}

export interface OsmRelation {
  type: 'relation';
  id: number;
  members: readonly OsmMember[];
  tags: OsmTags;
}

export type OsmElement = OsmNode | OsmWay | OsmRelation;

/** A stop found in an OSM file: a node, or a station way placed at the centroid of its nodes. */
export interface TransitStopElement {
  kind: 'stop';
  osmType: 'node' | 'way';
  id: number;
  lon: number;
  lat: number;
  tags: OsmTags;
}

/** A route relation found in an OSM file, with the ids of its node members (stops, stop positions, platforms). */
export interface TransitRouteElement {
  kind: 'route';
  id: number;
  tags: OsmTags;
  nodeIds: readonly number[];
}

/** What an OSM extract contributes to the stop index. */
export type TransitElement = TransitStopElement | TransitRouteElement;

/**
 * The elements e-mission asks Overpass for around a point: `node[highway=bus_stop]`, `node[railway=station]`,
 * `node[public_transport]`, `way[railway=station]` and `relation[route]`. Of the relations e-mission then keeps
 * those tagged `type=route`.
 */
export function isStopNode(node: OsmNode): boolean {
  const { tags } = node;
  return tags.highway === 'bus_stop' || tags.railway === 'station' || tags.public_transport !== undefined;
}

export function isStationWay(way: OsmWay): boolean {
  return way.tags.railway === 'station';
}

export function isRouteRelation(relation: OsmRelation): boolean {
  return relation.tags.route !== undefined && relation.tags.type === 'route';
}

/** The tags among `keys` that an element has: the rest would only take memory. */
export function pickTags(tags: OsmTags, keys: readonly string[]): OsmTags {
  const kept: Record<string, string> = {};
  for (const key of keys) {
    const value = tags[key];
    if (value !== undefined) kept[key] = value;
  }
  return kept;
}

export function stopOfNode(node: OsmNode): TransitStopElement {
  return {
    kind: 'stop',
    osmType: 'node',
    id: node.id,
    lon: node.lon,
    lat: node.lat,
    tags: pickTags(node.tags, STOP_TAG_KEYS),
  };
}

export function routeOfRelation(relation: OsmRelation): TransitRouteElement {
  return {
    kind: 'route',
    id: relation.id,
    tags: pickTags(relation.tags, ROUTE_TAG_KEYS),
    nodeIds: relation.members.filter((m) => m.type === 'node').map((m) => m.ref),
  };
}
