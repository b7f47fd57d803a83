import type { LonLat } from '../../../shared/geo/geo.js';
import type { OsmElement, OsmNode } from '../../../services/trip-builder/domain/modes/osm-elements.js';

/**
 * A small made-up town for the tests, as an OSM extract would map it:
 *  - bus line 1 (relation 9001): A → B → C;
 *  - bus line 2 (relation 9002): C → D (by North station) → E (by South station);
 *  - the S1 train (relation 9100): North → Central (a station drawn as an area, way 300) → South, through the stop
 *    positions 211, 212, 213;
 *  - a monorail shuttle (relation 9200) between the stations J and K;
 *  - two bus stops F and G with no route relation, only `route_ref` ("7;8" and "8;9");
 *  - some things that are not public transport (a café, a street, a multipolygon), which the reader must skip.
 * Points more than 150 m apart are at least 0.0027° apart, so each search box finds one place only.
 */
const node = (id: number, lon: number, lat: number, tags: Record<string, string> = {}): OsmNode => ({
  type: 'node',
  id,
  lon,
  lat,
  tags,
});
const busStop = (id: number, lon: number, lat: number, name: string, extra: Record<string, string> = {}) =>
  node(id, lon, lat, { highway: 'bus_stop', public_transport: 'platform', name, bench: 'yes', ...extra });
const station = (id: number, lon: number, lat: number, name: string, mode: string) =>
  node(id, lon, lat, { railway: 'station', public_transport: 'station', [mode]: 'yes', name, wheelchair: 'yes' });
const stopPosition = (id: number, lon: number, lat: number) =>
  node(id, lon, lat, { public_transport: 'stop_position', railway: 'stop', train: 'yes' });
const nodeMembers = (...ids: number[]) => ids.map((ref) => ({ type: 'node' as const, ref, role: 'stop' }));

export const FIXTURE_ELEMENTS: readonly OsmElement[] = [
  busStop(101, 8.5, 47.4, 'A'),
  busStop(102, 8.51, 47.4, 'Bärenplatz – B'),
  busStop(103, 8.52, 47.4, 'C'),
  busStop(104, 8.53, 47.42, 'D'),
  busStop(105, 8.53, 47.45, 'E'),
  busStop(106, 8.6, 47.4, 'F', { route_ref: '7;8' }),
  busStop(107, 8.62, 47.4, 'G', { route_ref: '8;9' }),
  station(201, 8.5305, 47.4205, 'North', 'train'),
  station(203, 8.5305, 47.4505, 'South', 'train'),
  station(205, 8.65, 47.4, 'J', 'monorail'),
  station(206, 8.67, 47.4, 'K', 'monorail'),
  stopPosition(211, 8.5306, 47.4203),
  stopPosition(212, 8.5301, 47.4351),
  stopPosition(213, 8.5306, 47.4503),
  // The corners of Central station's outline, and of a street: untagged nodes.
  node(301, 8.5295, 47.4345),
  node(302, 8.5305, 47.4345),
  node(303, 8.5305, 47.4355),
  node(304, 8.5295, 47.4355),
  node(401, 8.7, 47.5),
  node(402, 8.71, 47.5),
  node(400, 8.7, 47.5, { amenity: 'cafe', name: 'Not a stop' }),
  {
    type: 'way',
    id: 300,
    nodeRefs: [301, 302, 303, 304, 301],
    tags: { railway: 'station', public_transport: 'station', train: 'yes', name: 'Central', building: 'train_station' },
  },
  { type: 'way', id: 500, nodeRefs: [401, 402], tags: { highway: 'residential', name: 'Main Street' } },
  {
    type: 'relation',
    id: 9001,
    members: nodeMembers(101, 102, 103),
    tags: { type: 'route', route: 'bus', ref: '1', network: 'Town Transit', colour: 'red' },
  },
  {
    type: 'relation',
    id: 9002,
    members: nodeMembers(103, 104, 105),
    tags: { type: 'route', route: 'bus', ref: '2', network: 'Town Transit' },
  },
  {
    type: 'relation',
    id: 9100,
    members: [...nodeMembers(211, 212, 213), { type: 'way', ref: 300, role: 'station' }],
    tags: { type: 'route', route: 'train', ref: 'S1', network: 'Regio Rail' },
  },
  {
    type: 'relation',
    id: 9200,
    members: nodeMembers(205, 206),
    tags: { type: 'route', route: 'monorail', name: 'Shuttle' },
  },
  {
    type: 'relation',
    id: 9300,
    members: [{ type: 'way', ref: 500, role: 'outer' }],
    tags: { type: 'multipolygon', landuse: 'residential' },
  },
];

/** Points near the fixture's places, slightly off each stop as a phone's fix would be. */
export const PLACES = {
  A: [8.5002, 47.4001],
  B: [8.5101, 47.4002],
  north: [8.5303, 47.4202],
  central: [8.5299, 47.4349],
  south: [8.5303, 47.4502],
  F: [8.6001, 47.4001],
  G: [8.6199, 47.4001],
  J: [8.6501, 47.4],
  K: [8.6701, 47.4],
  nowhere: [8.9, 47.9],
  elsewhere: [8.95, 47.95],
} as const satisfies Record<string, LonLat>;

/** The fixture as an OSM XML document (https://wiki.openstreetmap.org/wiki/OSM_XML). */
export function toOsmXml(elements: readonly OsmElement[]): string {
  const lines = [`<?xml version="1.0" encoding="UTF-8"?>`, `<osm version="0.6" generator="itinera tests">`];
  for (const e of elements) {
    const tags = Object.entries(e.tags).map(([k, v]) => `    <tag k="${escape(k)}" v="${escape(v)}"/>`);
    if (e.type === 'node') {
      const open = `  <node id="${e.id}" lat="${e.lat}" lon="${e.lon}" version="1"`;
      lines.push(tags.length === 0 ? `${open}/>` : `${open}>`, ...tags, ...(tags.length ? ['  </node>'] : []));
    } else if (e.type === 'way') {
      lines.push(`  <way id="${e.id}" version="1">`, ...e.nodeRefs.map((ref) => `    <nd ref="${ref}"/>`));
      lines.push(...tags, '  </way>');
    } else {
      lines.push(`  <relation id="${e.id}" version="1">`);
      lines.push(...e.members.map((m) => `    <member type="${m.type}" ref="${m.ref}" role="${escape(m.role)}"/>`));
      lines.push(...tags, '  </relation>');
    }
  }
  lines.push('</osm>', '');
  return lines.join('\n');
}

function escape(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');
}
