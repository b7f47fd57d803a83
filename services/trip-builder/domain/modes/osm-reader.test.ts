import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../../shared/errors/index.js';
import { toOsmPbf } from '../../../../test/helpers/trip-builder/osm-pbf-writer.js';
import { FIXTURE_ELEMENTS, toOsmXml } from '../../../../test/helpers/trip-builder/transit-fixture.js';
import type { TransitElement } from './osm-elements.js';
import { parseOsmPbf } from './osm-pbf.js';
import { type OsmFormat, osmFormatOf, readTransitElements } from './osm-reader.js';
import { parseOsmXml } from './osm-xml.js';

/** The bytes in chunks of `size`, as a file stream would hand them over (cutting through characters and tags). */
async function* inChunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

const XML = new TextEncoder().encode(toOsmXml(FIXTURE_ELEMENTS));
const PBF = toOsmPbf(FIXTURE_ELEMENTS, (bytes) => deflateSync(bytes));

function source(format: OsmFormat, bytes: Uint8Array, chunkSize = 64) {
  const opened = { count: 0 };
  return {
    opened,
    format,
    open: () => {
      opened.count += 1;
      return inChunks(bytes, chunkSize);
    },
  };
}

const key = (e: TransitElement) => `${e.kind === 'stop' ? e.osmType : 'relation'}/${e.id}`;

describe('readTransitElements on OSM XML', () => {
  it('When the extract is read, then the stops and routes come out, and nothing else', async () => {
    const elements = await collect(readTransitElements(source('xml', XML)));
    expect(elements.map(key)).toEqual([
      ...[101, 102, 103, 104, 105, 106, 107, 201, 203, 205, 206, 211, 212, 213].map((id) => `node/${id}`),
      ...[9001, 9002, 9100, 9200].map((id) => `relation/${id}`),
      'way/300',
    ]);
  });
  it('When a stop is kept, then only the tags the match reads (and names) stay', async () => {
    const elements = await collect(readTransitElements(source('xml', XML, 7)));
    expect(elements.find((e) => e.id === 102)).toEqual({
      kind: 'stop',
      osmType: 'node',
      id: 102,
      lon: 8.51,
      lat: 47.4,
      tags: { highway: 'bus_stop', public_transport: 'platform', name: 'Bärenplatz – B' },
    });
    expect(elements.find((e) => e.id === 9001)).toEqual({
      kind: 'route',
      id: 9001,
      tags: { type: 'route', route: 'bus', network: 'Town Transit', ref: '1' },
      nodeIds: [101, 102, 103],
    });
  });
  it('When a station is drawn as an area, then it is a stop at the centroid of its nodes, read in a second pass', async () => {
    const src = source('xml', XML);
    const central = (await collect(readTransitElements(src))).find((e) => e.id === 300);
    expect(central).toMatchObject({ kind: 'stop', osmType: 'way', tags: { railway: 'station', name: 'Central' } });
    expect(central?.kind === 'stop' && [central.lon, central.lat]).toEqual([
      expect.closeTo(8.53, 9),
      expect.closeTo(47.435, 9),
    ]);
    expect(src.opened.count).toBe(2);
  });
  it('When there is no station area, then the file is read once', async () => {
    const noWays = new TextEncoder().encode(toOsmXml(FIXTURE_ELEMENTS.filter((e) => e.type !== 'way')));
    const src = source('xml', noWays);
    expect((await collect(readTransitElements(src))).length).toBe(18);
    expect(src.opened.count).toBe(1);
  });
  it('When an element is marked deleted (JOSM) or invisible (history), then it is skipped', async () => {
    const xml = `<osm><node id="1" lat="1" lon="2" action="delete"><tag k="highway" v="bus_stop"/></node>
      <node id="2" lat="1" lon="2" visible="false"><tag k="highway" v="bus_stop"/></node>
      <node id="3" lat="1" lon="2"><tag k="highway" v="bus_stop"/></node></osm>`;
    const elements = await collect(parseOsmXml([xml].values() as unknown as AsyncIterable<string>));
    expect(elements.map((e) => e.id)).toEqual([3]);
  });
  it('When the XML is broken, then a ValidationError', async () => {
    const broken = new TextEncoder().encode('<osm><node id="1" lat="1" lon="2"></way></osm>');
    await expect(collect(readTransitElements(source('xml', broken)))).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('readTransitElements on OSM PBF', () => {
  it('When the same extract is read from PBF, then the same elements as from XML', async () => {
    const fromXml = await collect(readTransitElements(source('xml', XML)));
    const fromPbf = await collect(readTransitElements(source('pbf', PBF, 50)));
    expect(fromPbf).toEqual(fromXml);
  });
  it('When the PBF is not a PBF, then a ValidationError', async () => {
    const junk = new Uint8Array([0, 0, 0, 3, 1, 2, 3, 4, 5]);
    await expect(collect(readTransitElements(source('pbf', junk)))).rejects.toBeInstanceOf(ValidationError);
  });
  it('When the PBF is cut short or garbled, then a ValidationError, read slowly or not', async () => {
    const cut = PBF.subarray(0, PBF.length - 10);
    await expect(collect(readTransitElements(source('pbf', cut, 16)))).rejects.toBeInstanceOf(ValidationError);
    const garbled = PBF.slice();
    garbled.fill(0xff, 40, 60);
    const slowly = async () => {
      for await (const _ of parseOsmPbf(inChunks(garbled, 8))) await new Promise((r) => setTimeout(r, 1));
    };
    await expect(slowly()).rejects.toBeInstanceOf(ValidationError);
  });
  it('When the reader stops early, then decoding stops and the source is released', async () => {
    let released = false;
    async function* tracked() {
      try {
        yield* inChunks(PBF, 10);
      } finally {
        released = true;
      }
    }
    for await (const element of parseOsmPbf(tracked())) {
      expect(element.type).toBe('node');
      break;
    }
    expect(released).toBe(true);
  });
});

describe('reading failures', () => {
  it.each<OsmFormat>(['xml', 'pbf'])(
    'When reading the %s file fails, then that error, not a format error',
    async (f) => {
      const lost = new RangeError('disk gone');
      async function* failing(): AsyncGenerator<Uint8Array> {
        yield (f === 'xml' ? XML : PBF).subarray(0, 20);
        throw lost;
      }
      await expect(collect(readTransitElements({ format: f, open: failing }))).rejects.toBe(lost);
    },
  );
});

describe('osmFormatOf', () => {
  it('When the file name ends in .osm.pbf or .pbf, then PBF; .osm or .xml, then XML; else unknown', () => {
    expect(osmFormatOf('/data/switzerland-latest.osm.pbf')).toBe('pbf');
    expect(osmFormatOf('extract.PBF')).toBe('pbf');
    expect(osmFormatOf('town.osm')).toBe('xml');
    expect(osmFormatOf('town.xml')).toBe('xml');
    expect(osmFormatOf('town.osm.bz2')).toBeUndefined();
  });
});
