import { describe, expect, it } from 'vitest';
import { loadRealDay } from '../../../../test/helpers/real-days.js';
import { toObservations } from '../observations.js';
import { buildTrips } from '../timeline/build-trips.js';
import { tripToCompositeEntry } from './composite-trip.js';
import { derivedObjectId } from '../../../../shared/ids/entry-identity.js';
import { tripToGeojson } from './trip-geojson.js';

const USER = '0763de67-f61e-3f5d-90e7-518e69793954';
const trips = buildTrips(toObservations(loadRealDay('shankari_2015-aug-27')), undefined).trips;
const composites = trips.map((t, i) => tripToCompositeEntry(USER, t, { previous: trips[i - 1], next: trips[i + 1] }));

/** What the current app's unpacking needs of any entry, nested ones included (emission-client.md §5.3). */
function expectFullEntry(e: any, key: string) {
  expect(e._id.$oid).toMatch(/^[0-9a-f]{24}$/);
  expect(e.metadata.key).toBe(key);
  expect(typeof e.data).toBe('object');
}

describe('composite trips', () => {
  it('When a day is built, then each trip is an analysis/composite_trip entry with the fields the current app reads', () => {
    for (const c of composites) {
      expectFullEntry(c, 'analysis/composite_trip');
      expect(c.metadata.origin_key).toBe('analysis/confirmed_trip');
      expect(c.user_id.$uuid).toBe(USER.replace(/-/g, ''));
      const d = c.data as any;
      for (const field of ['start_ts', 'end_ts', 'distance', 'duration', 'start_fmt_time', 'end_fmt_time']) {
        expect(d[field], field).toBeDefined();
      }
      expect(d.start_local_dt.timezone).toBe('America/Los_Angeles');
      expect(d.start_loc.type).toBe('Point');
      expectFullEntry(d.start_confirmed_place, 'analysis/confirmed_place');
      expectFullEntry(d.end_confirmed_place, 'analysis/confirmed_place');
      expect(d.expectation).toEqual({ to_label: true });
      expect(d.user_input).toEqual({});
      for (const s of d.sections) expectFullEntry(s, 'analysis/inferred_section');
      for (const l of d.locations) expectFullEntry(l, 'analysis/recreated_location');
    }
  });

  it('When a composite trip is compared with the getTrips GeoJSON of the same trip, then ids, times, sections and modes agree', () => {
    trips.forEach((t, i) => {
      const geo = tripToGeojson(USER, t, trips[i - 1], trips[i + 1]) as any;
      const c = composites[i] as any;
      expect(c._id.$oid).toBe(geo.id);
      expect(c.data.start_ts).toBe(geo.properties.start_ts);
      expect(c.data.end_fmt_time).toBe(geo.properties.end_fmt_time);
      const geoSections = geo.features
        .filter((f: any) => f.type === 'FeatureCollection')
        .map((f: any) => f.features[0]);
      // The composite's sections are the inferred copies of getTrips' cleaned sections.
      expect(c.data.sections.map((s: any) => s.data.cleaned_section.$oid)).toEqual(geoSections.map((s: any) => s.id));
      const sensed = geoSections.map((s: any) => s.properties.sensed_mode);
      expect(
        Object.keys(c.data.cleaned_section_summary.distance)
          .map((m) => `MotionTypes.${m}`)
          .sort(),
      ).toEqual([...new Set(sensed)].sort());
      const summed = Object.values(c.data.cleaned_section_summary.distance as Record<string, number>).reduce(
        (a, b) => a + b,
        0,
      );
      expect(summed).toBeCloseTo(
        c.data.sections.reduce((a: number, s: any) => a + s.data.distance, 0),
        6,
      );
      expect(c.data.locations.length).toBe(
        geoSections.reduce((a: number, s: any) => a + s.geometry.coordinates.length, 0),
      );
    });
  });

  it('When a day is rendered, then each section carries the predicted mode as PredictedModeTypes, summed in inferred_section_summary', () => {
    const predicted = { WALKING: 1, BICYCLING: 2, CAR: 5, UNKNOWN: 0 } as Record<string, number>;
    for (const c of composites as any[]) {
      for (const s of c.data.sections) {
        expect(Object.keys(predicted)).toContain(s.data.sensed_mode_str);
        expect(s.data.sensed_mode).toBe(predicted[s.data.sensed_mode_str]);
      }
      const byMode: Record<string, number> = {};
      for (const s of c.data.sections) byMode[s.data.sensed_mode_str] = (byMode[s.data.sensed_mode_str] ?? 0) + 1;
      expect(c.data.inferred_section_summary.count).toEqual(byMode);
    }
    // aug-27 is walking and driving: without transit data, IN_VEHICLE is CAR.
    const modes = new Set(
      (composites as any[]).flatMap((c) => c.data.sections.map((s: any) => s.data.sensed_mode_str)),
    );
    expect(modes).toContain('CAR');
    expect(modes).toContain('WALKING');
  });

  it('When neighbouring trips are rendered, then the end place of one is the start place of the next, and every location id is unique', () => {
    for (let i = 1; i < composites.length; i += 1) {
      expect((composites[i] as any).data.start_confirmed_place._id).toEqual(
        (composites[i - 1] as any).data.end_confirmed_place._id,
      );
    }
    const ids = composites.flatMap((c: any) => c.data.locations.map((l: any) => l._id.$oid));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('When the same trips are rendered twice, then the entries are identical (a rebuild changes nothing the phone cached)', () => {
    const again = trips.map((t, i) => tripToCompositeEntry(USER, t, { previous: trips[i - 1], next: trips[i + 1] }));
    expect(JSON.stringify(again)).toBe(JSON.stringify(composites));
  });
});

describe('object ids', () => {
  it('When ids are derived from many inputs, then each is 24 lowercase hex digits, as a Mongo ObjectId', () => {
    for (let i = 0; i < 5000; i += 1)
      expect(derivedObjectId(USER, 'location', 1440688707 + i * 0.37, i)).toMatch(/^[0-9a-f]{24}$/);
  });
});
