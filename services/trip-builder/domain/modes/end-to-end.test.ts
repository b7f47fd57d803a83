import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LonLat } from '../../../../shared/geo/geo.js';
import { toOsmPbf } from '../../../../test/helpers/trip-builder/osm-pbf-writer.js';
import { FIXTURE_ELEMENTS, PLACES, toOsmXml } from '../../../../test/helpers/trip-builder/transit-fixture.js';
import { osmFormatOf } from './osm-reader.js';
import type { MotionTypeName } from './predicted-modes.js';
import { predictSectionMode, type SectionForModeInference } from './rule-engine.js';
import { indexOsmExtract, type TransitStopIndex } from './stop-index.js';

/** A section between two places of the fixture town, at a median speed, 3 km in 10 minutes unless told. */
function ride(sensedMode: MotionTypeName, from: LonLat, to: LonLat, medianSpeed: number, distance = 3000) {
  const section: SectionForModeInference = {
    sensedMode,
    medianSpeed,
    distance,
    duration: 600,
    startLoc: from,
    endLoc: to,
  };
  return section;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'itinera-modes-'));
  writeFileSync(join(dir, 'town.osm'), toOsmXml(FIXTURE_ELEMENTS));
  writeFileSync(
    join(dir, 'town.osm.pbf'),
    toOsmPbf(FIXTURE_ELEMENTS, (bytes) => deflateSync(bytes)),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function indexFile(name: string): Promise<TransitStopIndex> {
  const path = join(dir, name);
  // A small highWaterMark makes the file arrive in many chunks, as a regional extract would.
  return indexOsmExtract({ format: osmFormatOf(path)!, open: () => createReadStream(path, { highWaterMark: 256 }) });
}

describe.each(['town.osm', 'town.osm.pbf'])('a town extract in %s, read, indexed and matched', (file) => {
  let index: TransitStopIndex;
  beforeAll(async () => {
    index = await indexFile(file);
  });

  it('When the extract is indexed, then it holds the 14 stop nodes and the station area', () => {
    expect(index.size).toBe(15);
    expect(index.findStopsNear(PLACES.central).map((s) => `${s.osmType}/${s.id}`)).toEqual(['node/212', 'way/300']);
  });
  it('When a car-sensed ride goes from A to B along bus line 1, then BUS', async () => {
    const p = await predictSectionMode(ride('IN_VEHICLE', PLACES.A, PLACES.B, 6), index);
    expect(p).toMatchObject({ mode: 'BUS', value: 3, predictedModeMap: { BUS: 1 }, rule: 'transit-match' });
  });
  it('When a ride starts on bus line 1 and ends on line 2 only, then CAR', async () => {
    expect((await predictSectionMode(ride('IN_VEHICLE', PLACES.A, PLACES.south, 6), index)).mode).toBe('CAR');
  });
  it('When a ride goes from North to South, served by bus line 2 and the S1, then the median speed decides', async () => {
    const slow = await predictSectionMode(ride('IN_VEHICLE', PLACES.north, PLACES.south, 8.5), index);
    expect(slow).toMatchObject({ mode: 'BUS', transit: { rule: 'same-route', routes: ['bus', 'train'] } });
    expect((await predictSectionMode(ride('IN_VEHICLE', PLACES.north, PLACES.south, 14), index)).mode).toBe('TRAIN');
  });
  it('When a ride ends at Central, a station drawn as an area, then TRAIN (S1 stops there)', async () => {
    expect((await predictSectionMode(ride('IN_VEHICLE', PLACES.north, PLACES.central, 5), index)).mode).toBe('TRAIN');
  });
  it('When a ride takes the monorail from J to K, then TRAIN (the rail collapse)', async () => {
    const p = await predictSectionMode(ride('IN_VEHICLE', PLACES.J, PLACES.K, 10), index);
    expect(p).toMatchObject({ mode: 'TRAIN', transit: { routes: ['monorail'] } });
  });
  it('When an UNKNOWN fast ride links two bus stops naming line 8 in route_ref, then BUS', async () => {
    const p = await predictSectionMode(ride('UNKNOWN', PLACES.F, PLACES.G, NaN), index);
    expect(p).toMatchObject({ mode: 'BUS', transit: { rule: 'route-ref' } });
  });
  it('When a ride is outside the extract, then IN_VEHICLE is CAR and a fast UNKNOWN stays UNKNOWN', async () => {
    const away = [PLACES.nowhere, PLACES.elsewhere] as const;
    expect((await predictSectionMode(ride('IN_VEHICLE', ...away, 12), index)).mode).toBe('CAR');
    expect((await predictSectionMode(ride('UNKNOWN', ...away, 12), index)).mode).toBe('UNKNOWN');
  });
  it('When the section is a walk, a slow UNKNOWN, a bike ride or a flight, then no stop is needed', async () => {
    expect((await predictSectionMode(ride('ON_FOOT', PLACES.A, PLACES.B, 1.4, 800), index)).mode).toBe('WALKING');
    expect((await predictSectionMode(ride('UNKNOWN', PLACES.A, PLACES.B, NaN, 600), index)).mode).toBe('WALKING');
    expect((await predictSectionMode(ride('BICYCLING', PLACES.A, PLACES.B, 5), index)).mode).toBe('BICYCLING');
    expect((await predictSectionMode(ride('AIR_OR_HSR', PLACES.A, PLACES.B, 60), index)).mode).toBe('AIR_OR_HSR');
  });
});
