import { create } from 'xmlbuilder2';
import { describe, expect, it } from 'vitest';
import {
  expectedCompositeFiles as expectedFiles,
  from,
  loadExpectedComposites as load,
  text,
} from '../../../test/helpers/export-fixtures.js';
import type { CompositeTrip } from './composite-trip.js';
import { GPX_NAMESPACE, gpxDocument } from './gpx.js';

/** The document parsed back by xmlbuilder2, as a DOM root element. */
function parseGpx(xml: string): Element {
  return create(xml).root().node as unknown as Element;
}

const children = (parent: Element, name: string): Element[] =>
  Array.from(parent.childNodes).filter((n): n is Element => (n as Element).localName === name);

const TRICKY = 'car, "fast"\nlane <&> \'x\'';

const trickyTrip: CompositeTrip = {
  _id: { $oid: 'tricky' },
  metadata: { origin_key: 'analysis/confirmed_trip' },
  data: {
    start_ts: 1681436743.402,
    end_ts: 1681436803.402,
    start_fmt_time: '2023-04-13T18:45:43.402000-07:00 <&>',
    user_input: {
      mode_confirm: TRICKY,
      trip_user_input: { data: { label: `survey ${TRICKY}`, name: 'S' } },
      bad_chars: 'a\u0000b\u000bc',
    },
    locations: [
      { data: { ts: 1681436743.402, loc: { coordinates: [-122.1, 37.4] }, altitude: 12.5 } },
      { data: { ts: 1681436803.402, loc: { coordinates: [-122.2, 37.5] } } },
    ],
  },
};

describe('gpxDocument on e-mission expected composite trips', () => {
  it.each(expectedFiles)('%s: one trk per tracked trip, one trkpt per location in its sections', async (file) => {
    const trips = load(file) as any[];
    const gpx = parseGpx(await text(gpxDocument(from(trips as CompositeTrip[]), { creator: 'test' })));
    expect(gpx.localName).toBe('gpx');
    expect(gpx.namespaceURI).toBe(GPX_NAMESPACE);
    expect(gpx.getAttribute('version')).toBe('1.1');
    expect(gpx.getAttribute('creator')).toBe('test');

    const tracked = trips.filter((t) => t.metadata.origin_key !== 'analysis/confirmed_untracked');
    const tracks = children(gpx, 'trk');
    expect(tracks).toHaveLength(tracked.length);
    expect(gpx.getElementsByTagNameNS(GPX_NAMESPACE, 'trk')).toHaveLength(tracked.length);

    tracks.forEach((trk, i) => {
      const { data } = tracked[i];
      expect(children(trk, 'name')[0]!.textContent).toBe(data.start_fmt_time);
      const segments = children(trk, 'trkseg');
      const perSection = data.sections.map(
        (s: any) =>
          data.locations.filter((l: any) => l.data.ts >= s.data.start_ts && l.data.ts <= s.data.end_ts).length,
      );
      expect(segments.map((seg) => children(seg, 'trkpt').length)).toEqual(perSection);

      const points = segments.flatMap((seg) => children(seg, 'trkpt'));
      const first = points[0]!;
      const location = data.locations[0].data;
      expect(Number(first.getAttribute('lat'))).toBe(location.loc.coordinates[1]);
      expect(Number(first.getAttribute('lon'))).toBe(location.loc.coordinates[0]);
      expect(Number(children(first, 'ele')[0]!.textContent)).toBe(location.altitude);
      expect(Date.parse(children(first, 'time')[0]!.textContent!)).toBe(Math.round(location.ts * 1000));
    });
  });

  it('writes a valid empty document without trips', async () => {
    const gpx = parseGpx(await text(gpxDocument(from([]))));
    expect(gpx.localName).toBe('gpx');
    expect(gpx.getAttribute('creator')).toBe('Itinera');
    expect(children(gpx, 'trk')).toHaveLength(0);
  });
});

describe('gpxDocument with labels that need escaping', () => {
  it('keeps commas, quotes, newlines and <&> intact, and drops what XML cannot carry', async () => {
    const xml = await text(gpxDocument(from([trickyTrip]), { creator: 'a "quoted" <creator> & co' }));
    const gpx = parseGpx(xml);
    expect(gpx.getAttribute('creator')).toBe('a "quoted" <creator> & co');
    const [trk] = children(gpx, 'trk');
    expect(children(trk!, 'name')[0]!.textContent).toBe('2023-04-13T18:45:43.402000-07:00 <&>');
    expect(children(trk!, 'desc')[0]!.textContent).toBe(
      [`mode_confirm: ${TRICKY}`, `trip_user_input: survey ${TRICKY}`, 'bad_chars: abc'].join('\n'),
    );
    expect(xml).not.toMatch(/[\u0000\u000b]/);
    const [segment] = children(trk!, 'trkseg');
    expect(children(segment!, 'trkpt')).toHaveLength(2);
  });
});

describe('gpxDocument track points, written without the XML library', () => {
  const at = (ts: number, lon: unknown, lat: unknown, altitude?: unknown) =>
    ({ data: { ts, loc: { coordinates: [lon, lat] }, altitude } }) as never;

  it('writes only finite numbers and real times, skipping what is not one', async () => {
    const trip: CompositeTrip = {
      _id: { $oid: 'odd' },
      data: {
        start_ts: 1,
        end_ts: 9,
        locations: [
          at(1, -122.1, 37.4, 12.5),
          at(2, NaN, 37.4),
          at(3, -122.1, Infinity),
          at(4, '-122.1"/><evil/>', 37.4),
          at(5, -122.1, 37.4, -Infinity),
          at(6, -122.1, 37.4, '<ele>'),
          at(1e20, -122.1, 37.4),
          at(8, -1e-7, 5e-324, 1e21),
        ],
      },
    };
    const xml = await text(gpxDocument(from([trip])));
    const [trk] = children(parseGpx(xml), 'trk');
    const points = children(children(trk!, 'trkseg')[0]!, 'trkpt');
    expect(points.map((p) => [p.getAttribute('lat'), p.getAttribute('lon')])).toEqual([
      ['37.4', '-122.1'],
      ['37.4', '-122.1'],
      ['37.4', '-122.1'],
      ['0', '-0.0000001'],
      ['37.4', '-122.1'],
    ]);
    expect(points.map((p) => children(p, 'ele').map((e) => e.textContent))).toEqual([['12.5'], [], [], [], []]);
    expect(points.map((p) => children(p, 'time').length)).toEqual([1, 1, 1, 1, 0]);
    expect(children(points[0]!, 'time')[0]!.textContent).toBe('1970-01-01T00:00:01.000Z');
    expect(xml).not.toMatch(/NaN|Infinity|evil|e[+-]\d/);
  });

  it('keeps the schema order: ele, then time', async () => {
    const trip: CompositeTrip = { _id: { $oid: 'o' }, data: { start_ts: 1, end_ts: 2, locations: [at(1, 2, 3, 4)] } };
    expect(await text(gpxDocument(from([trip])))).toContain(
      '<trkseg><trkpt lat="3" lon="2"><ele>4</ele><time>1970-01-01T00:00:01.000Z</time></trkpt></trkseg>',
    );
  });
});
