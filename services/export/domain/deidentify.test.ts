import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emissionFixturesDir } from '../../../test/helpers/fixtures.js';
import type { CompositeTrip } from './composite-trip.js';
import { frequentPlaceFilter, isLocationNear, mostFrequentPlaces, tripEnds, withoutNearPoints } from './deidentify.js';

describe('frequentPlaceFilter', () => {
  // About 111 m per 0.001 degree of latitude.
  const near = frequentPlaceFilter([{ lat: 37.39, lon: -122.08 }], 200);

  it('is true within the radius of a place, false beyond', () => {
    expect(near(37.39, -122.08)).toBe(true);
    expect(near(37.391, -122.08)).toBe(true);
    expect(near(37.393, -122.08)).toBe(false);
  });

  it('is false for every point without places', () => {
    expect(frequentPlaceFilter([], 1000)(0, 0)).toBe(false);
  });
});

describe('mostFrequentPlaces', () => {
  it('returns the centers of the largest clusters, largest first', () => {
    const home = { lat: 37.39, lon: -122.08 };
    const work = { lat: 37.42, lon: -122.1 };
    const shop = { lat: 37.4, lon: -122.0 };
    const jitter = (p: { lat: number; lon: number }, k: number) => ({ lat: p.lat + k * 1e-5, lon: p.lon - k * 1e-5 });
    const points = [shop, jitter(work, 1), jitter(home, 1), jitter(home, -2), jitter(work, -1), jitter(home, 3)];
    const places = mostFrequentPlaces(points);
    expect(places.map((p) => p.members)).toEqual([3, 2]);
    expect(places[0]!.lat).toBeCloseTo(home.lat, 4);
    expect(places[0]!.lon).toBeCloseTo(home.lon, 4);
    expect(places[1]!.lat).toBeCloseTo(work.lat, 4);
    expect(mostFrequentPlaces(points, 5)).toHaveLength(3);
    expect(mostFrequentPlaces(points, 0)).toEqual([]);
  });

  it('finds the place a real user keeps coming back to, and the filter then removes it', () => {
    const trips: any[] = JSON.parse(
      readFileSync(
        join(
          emissionFixturesDir(),
          'emission-labels',
          'shankari_2023-04-13.retained-last-place.alt.expected_composite_trips.json',
        ),
        'utf8',
      ),
    );
    const ends = trips.flatMap((t) =>
      [t.data.start_loc, t.data.end_loc].map(({ coordinates: [lon, lat] }: any) => ({ lat, lon })),
    );
    const [top] = mostFrequentPlaces(ends, 1);
    const visits = ends.filter((e) => frequentPlaceFilter([top!], 100)(e.lat, e.lon));
    expect(visits.length).toBe(top!.members);
    expect(top!.members).toBeGreaterThanOrEqual(3);
  });
});

describe('de-identification filtering', () => {
  const home = { lat: 37.39, lon: -122.08 };
  const isNear = frequentPlaceFilter([home], 200);
  const point = (lat: number, lon: number) => ({ type: 'Point', coordinates: [lon, lat] });
  const fix = (ts: number, lat: number, lon: number) => ({ data: { ts, loc: point(lat, lon) } });
  const fromHome: CompositeTrip = {
    _id: { $oid: 't' },
    data: {
      start_ts: 1,
      end_ts: 4,
      start_loc: point(37.3901, -122.0801),
      end_loc: point(37.5, -122.2),
      locations: [fix(1, 37.3901, -122.0801), fix(2, 37.391, -122.08), fix(3, 37.45, -122.1), fix(4, 37.5, -122.2)],
      distance: 9000,
    },
  };

  it('collects where trips start and end, skipping what has no position', () => {
    const noEnd: CompositeTrip = { _id: { $oid: 'u' }, data: { start_ts: 5, end_ts: 6, start_loc: point(1, 2) } };
    expect([...tripEnds([fromHome, noEnd])]).toEqual([
      { lat: 37.3901, lon: -122.0801 },
      { lat: 37.5, lon: -122.2 },
      { lat: 1, lon: 2 },
    ]);
  });

  it('drops the locations, start and end near a frequent place, and leaves the input unchanged', () => {
    const before = structuredClone(fromHome);
    const cut = withoutNearPoints(fromHome, isNear);
    expect(cut.data.locations?.map((l) => l.data?.ts)).toEqual([3, 4]);
    expect(cut.data.start_loc).toBeUndefined();
    expect(cut.data.end_loc).toEqual(fromHome.data.end_loc);
    expect(cut.data.distance).toBe(9000);
    expect(fromHome).toEqual(before);
  });

  it('returns a trip with nothing near as it is', () => {
    const far = withoutNearPoints(fromHome, frequentPlaceFilter([{ lat: 0, lon: 0 }], 200));
    expect(far).toBe(fromHome);
    expect(withoutNearPoints(fromHome, frequentPlaceFilter([], 200))).toBe(fromHome);
  });

  it('recognises raw location fixes near a place by loc or by latitude/longitude', () => {
    const raw = (key: string, data: object) => ({ metadata: { key }, data });
    expect(isLocationNear(raw('background/location', { loc: point(37.3901, -122.08) }), isNear)).toBe(true);
    expect(isLocationNear(raw('background/filtered_location', { latitude: 37.391, longitude: -122.08 }), isNear)).toBe(
      true,
    );
    expect(isLocationNear(raw('background/location', { latitude: 37.5, longitude: -122.08 }), isNear)).toBe(false);
    // Only location fixes are filtered; one without a position says nothing of where it was.
    expect(isLocationNear(raw('background/motion_activity', { latitude: 37.39, longitude: -122.08 }), isNear)).toBe(
      false,
    );
    expect(isLocationNear(raw('background/location', { latitude: 'x' }), isNear)).toBe(false);
    expect(isLocationNear({}, isNear)).toBe(false);
  });
});
