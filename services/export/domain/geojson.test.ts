import { describe, expect, it } from 'vitest';
import {
  expectedCompositeFiles as expectedFiles,
  from,
  loadExpectedComposites as load,
  text,
} from '../../../test/helpers/export-fixtures.js';
import type { CompositeTrip } from './composite-trip.js';
import { geojsonFeatureCollection, tripGeometry } from './geojson.js';

const trip = (data: Partial<CompositeTrip['data']>): CompositeTrip => ({
  _id: { $oid: 'synthetic' },
  data: { start_ts: 1, end_ts: 2, ...data },
});

describe('geojsonFeatureCollection on e-mission expected composite trips', () => {
  it.each(expectedFiles)('%s: one Feature per trip, [lon, lat] paths, labels and notes', async (file) => {
    const trips = load(file);
    const collection = JSON.parse(await text(geojsonFeatureCollection(from(trips))));
    expect(collection.type).toBe('FeatureCollection');
    expect(collection.features).toHaveLength(trips.length);
    collection.features.forEach((feature: any, i: number) => {
      const { data, metadata } = trips[i] as any;
      expect(feature.type).toBe('Feature');
      expect(feature.id).toBe(trips[i]!._id.$oid);
      expect(feature.properties).toMatchObject({
        trip_id: trips[i]!._id.$oid,
        start_ts: data.start_ts,
        end_ts: data.end_ts,
        start_fmt_time: data.start_fmt_time,
        end_fmt_time: data.end_fmt_time,
        distance_m: data.distance,
        duration_s: data.duration,
        notes_count: data.additions.length,
        untracked: metadata.origin_key === 'analysis/confirmed_untracked',
      });
      expect(feature.properties.sections.map((s: any) => s.mode)).toEqual(
        data.sections.map((s: any) => s.data.sensed_mode_str),
      );
      if (data.user_input.trip_user_input) {
        expect(feature.properties.labels.trip_user_input).toBe(data.user_input.trip_user_input.data.label);
      }
      const expected =
        data.locations.length >= 2
          ? data.locations.map((l: any) => l.data.loc.coordinates)
          : [data.start_loc.coordinates, data.end_loc.coordinates];
      expect(feature.geometry.type).toBe('LineString');
      expect(feature.geometry.coordinates).toEqual(expected);
      for (const [lon, lat] of feature.geometry.coordinates) {
        expect(Math.abs(lat)).toBeLessThanOrEqual(90);
        // These days are in North America: a swapped pair would put longitude in the latitude slot.
        expect(lon).toBeLessThan(-60);
        expect(lat).toBeGreaterThan(20);
      }
    });
  });

  it('marks untracked periods and draws them from start to end', async () => {
    const trips = load('jack_untracked_time_2023-03-12.expected_composite_trips.json');
    const collection = JSON.parse(await text(geojsonFeatureCollection(from(trips))));
    const untracked = collection.features.filter((f: any) => f.properties.untracked);
    expect(untracked).toHaveLength(1);
    expect(untracked[0].geometry.coordinates).toHaveLength(2);
    expect(untracked[0].properties.sections).toEqual([]);
  });

  it('yields the collection trip by trip', async () => {
    const trips = load('shankari_2023-04-13.retained-last-place.alt.expected_composite_trips.json');
    const chunks: string[] = [];
    for await (const chunk of geojsonFeatureCollection(from(trips))) chunks.push(chunk);
    expect(chunks).toHaveLength(trips.length + 2);
  });

  it('is a valid empty collection without trips', async () => {
    expect(JSON.parse(await text(geojsonFeatureCollection(from([]))))).toEqual({
      type: 'FeatureCollection',
      features: [],
    });
  });
});

describe('tripGeometry', () => {
  const at = (ts: number, lon: number, lat: number) => ({
    data: { ts, loc: { type: 'Point', coordinates: [lon, lat] } },
  });

  it('orders the path by time', () => {
    expect(tripGeometry(trip({ locations: [at(2, 3, 4), at(1, 1, 2)] }))).toEqual({
      type: 'LineString',
      coordinates: [
        [1, 2],
        [3, 4],
      ],
    });
  });

  it('falls back to start and end, then to a Point, then to null', () => {
    const start_loc = { type: 'Point', coordinates: [5, 6] };
    const end_loc = { type: 'Point', coordinates: [7, 8] };
    expect(tripGeometry(trip({ locations: [at(1, 1, 2)], start_loc, end_loc }))).toEqual({
      type: 'LineString',
      coordinates: [
        [5, 6],
        [7, 8],
      ],
    });
    expect(tripGeometry(trip({ locations: [at(1, 1, 2)] }))).toEqual({ type: 'Point', coordinates: [1, 2] });
    expect(tripGeometry(trip({ start_loc }))).toEqual({ type: 'Point', coordinates: [5, 6] });
    expect(tripGeometry(trip({}))).toBeNull();
  });
});
