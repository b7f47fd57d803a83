import type { TransitRoute, TransitStop } from './transit-stops.js';

/**
 * Which public-transport routes could have carried someone from one set of stops to another, by e-mission's checks
 * (`emission/net/ext_service/transit_matching/match_stops.py`), most confident first:
 *  1. `same-route`: a route relation that calls at both ends (or two rail routes of the same type and network);
 *  2. `rail-at-both-ends`: both ends have rail stops; the rail modes they share (possibly none);
 *  3. `route-ref`: bus stops at both ends name a common line in their `route_ref` tag.
 */
export type TransitMatchRule = 'same-route' | 'rail-at-both-ends' | 'route-ref';

export interface TransitMatch {
  rule: TransitMatchRule;
  /**
   * Raw route values (`bus`, `train`, `light_rail:suspended`…) or, for rail stops, mode names (`SUBWAY`), one per
   * match, duplicates kept: their order decides the speed tie-break in collapseTransitModes.
   */
  routes: readonly string[];
}

/** Route types that are rail; two such routes of one type run by the same network count as one line. */
const RAIL_ROUTE_TYPES: ReadonlySet<string> = new Set([
  'funicular',
  'miniature',
  'rail',
  'railway',
  'light_rail',
  'subway',
  'monorail',
  'tram',
  'aerialway',
  'tracks',
]);

/** A stop tagged with one of these keys (any value) alongside `railway` serves that rail mode. */
const RAIL_MODE_BY_KEY: readonly (readonly [string, string])[] = [
  ['subway', 'SUBWAY'],
  ['train', 'TRAIN'],
  ['tram', 'TRAM'],
  ['light_rail', 'LIGHT_RAIL'],
];

/**
 * The routes common to both ends, or undefined when nothing matches. A `rail-at-both-ends` match may hold no
 * routes: e-mission stops there, without looking at `route_ref`, when both ends are rail stops of different modes.
 */
export function matchTransitRoutes(
  startStops: readonly TransitStop[],
  endStops: readonly TransitStop[],
): TransitMatch | undefined {
  const sameRoute = routesAtBothEnds(
    startStops.flatMap((s) => s.routes),
    endStops.flatMap((s) => s.routes),
  );
  if (sameRoute.length > 0) return { rule: 'same-route', routes: sameRoute };

  const startRail = railModes(startStops);
  const endRail = railModes(endStops);
  if (startRail.length > 0 && endRail.length > 0) {
    return { rule: 'rail-at-both-ends', routes: startRail.filter((mode) => endRail.includes(mode)) };
  }

  const startLines = busLinesByRouteRef(startStops);
  const endLines = busLinesByRouteRef(endStops);
  const common = startLines.flatMap((line) => endLines.filter((other) => other === line).map(() => 'bus'));
  if (common.length > 0) return { rule: 'route-ref', routes: common };
  // e-mission's last check (bus stops without any route data, sparse at one end) can never pass: every stop it
  // fetches carries a `routes` list, which that check requires to be absent. Left out for the same answers.
  return undefined;
}

/** Every (start, end) pair of routes that is one line gives the start route's value, pairs in order. */
function routesAtBothEnds(startRoutes: readonly TransitRoute[], endRoutes: readonly TransitRoute[]): string[] {
  const matches: string[] = [];
  for (const start of startRoutes) {
    for (const end of endRoutes) {
      if (start.id === end.id || sameRailLine(start, end)) matches.push(start.route);
    }
  }
  return matches;
}

function sameRailLine(a: TransitRoute, b: TransitRoute): boolean {
  return (
    RAIL_ROUTE_TYPES.has(a.route) &&
    a.route === b.route &&
    a.network !== undefined &&
    b.network !== undefined &&
    a.network === b.network
  );
}

/**
 * The rail modes of an end's stops, each once, in the order first seen. e-mission keeps them in a Python set, whose
 * order changes from run to run; the first-seen order makes the tie-break between two rail modes repeatable.
 */
function railModes(stops: readonly TransitStop[]): string[] {
  const modes: string[] = [];
  for (const stop of stops) {
    if (stop.tags.railway === undefined) continue;
    for (const [key, mode] of RAIL_MODE_BY_KEY) {
      if (stop.tags[key] !== undefined && !modes.includes(mode)) modes.push(mode);
    }
  }
  return modes;
}

/** The lines the bus stops name in `route_ref` ("10;12"), split on `;` as written (no trimming), repeats kept. */
function busLinesByRouteRef(stops: readonly TransitStop[]): string[] {
  return stops
    .filter((s) => s.tags.highway === 'bus_stop' && s.tags.route_ref !== undefined)
    .flatMap((s) => s.tags.route_ref!.split(';'));
}
