import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  compareTrips,
  emissionTripsFromEntries,
  emissionTripsFromGroundTruth,
  localDateOf,
  matchTrips,
  type TripSpan,
} from './compare-trips.js';
import { ImportFormatError } from './import-format-error.js';
import { emissionFixturesDir } from '../../../test/helpers/fixtures.js';

const GROUND_TRUTH = join(emissionFixturesDir(), 'emission-real-days/shankari_2015-aug-27.ground_truth.json');
const COMPOSITES = join(
  emissionFixturesDir(),
  'emission-labels/jack_untracked_time_2023-03-12.expected_composite_trips.json',
);
const readJson = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));

/** 2015-08-27T15:18:59.672Z, 08:18 in Los Angeles. */
const T0 = 1440688739.672;
const trip = (startTs: number, endTs: number, timeZone?: string): TripSpan =>
  timeZone === undefined ? { startTs, endTs } : { startTs, endTs, timeZone };

describe('matchTrips', () => {
  it('When both sides have the same trip, then it matches', () => {
    expect(matchTrips([trip(T0, T0 + 600)], [trip(T0, T0 + 600)])).toEqual([{ emission: 0, itinera: 0 }]);
  });

  it('When start and end are each 59 s off, then they match with the default 60 s tolerance', () => {
    expect(matchTrips([trip(T0, T0 + 600)], [trip(T0 + 59, T0 + 600 - 59)])).toHaveLength(1);
  });

  it('When a trip is exactly 60 s off, then float seconds still let it match', () => {
    expect(matchTrips([trip(T0, T0 + 600)], [trip(T0 + 60, T0 + 660)])).toHaveLength(1);
  });

  it('When the start or the end is 61 s off, then there is no match', () => {
    expect(matchTrips([trip(T0, T0 + 600)], [trip(T0 + 61, T0 + 600)])).toEqual([]);
    expect(matchTrips([trip(T0, T0 + 600)], [trip(T0, T0 + 661)])).toEqual([]);
    expect(matchTrips([trip(T0, T0 + 600)], [trip(T0 - 61, T0 + 600)])).toEqual([]);
  });

  it('When the tolerance is given, then it is used', () => {
    expect(matchTrips([trip(T0, T0 + 600)], [trip(T0 + 100, T0 + 600)], 120)).toHaveLength(1);
  });

  it('When one e-mission trip has two Itinera candidates, then it takes the closest start and only one', () => {
    const pairs = matchTrips([trip(T0, T0 + 600)], [trip(T0 + 30, T0 + 590), trip(T0 + 10, T0 + 620)]);
    expect(pairs).toEqual([{ emission: 0, itinera: 1 }]);
  });

  it('When two e-mission trips want one Itinera trip, then the closer one gets it and the other none', () => {
    const pairs = matchTrips([trip(T0, T0 + 600), trip(T0 + 50, T0 + 640)], [trip(T0 + 40, T0 + 630)]);
    expect(pairs).toEqual([{ emission: 1, itinera: 0 }]);
  });

  it('When the greedy choice frees a trip for another, then both pair one to one', () => {
    const emission = [trip(T0, T0 + 600), trip(T0 + 45, T0 + 650)];
    const itinera = [trip(T0 + 5, T0 + 610), trip(T0 + 50, T0 + 640)];
    expect(matchTrips(emission, itinera)).toEqual([
      { emission: 0, itinera: 0 },
      { emission: 1, itinera: 1 },
    ]);
  });

  it('When a trip has a non-finite time, then it is a caller bug and throws', () => {
    expect(() => matchTrips([trip(Number.NaN, T0)], [])).toThrow(RangeError);
  });
});

describe('localDateOf', () => {
  it('When one instant is seen from different zones, then each zone has its own date', () => {
    const lateEvening = Date.UTC(2015, 7, 28, 5, 30) / 1000; // 22:30 on the 27th in Los Angeles
    expect(localDateOf(lateEvening, 'America/Los_Angeles')).toBe('2015-08-27');
    expect(localDateOf(lateEvening)).toBe('2015-08-28');
    expect(localDateOf(lateEvening, 'Asia/Tokyo')).toBe('2015-08-28');
    expect(localDateOf(lateEvening, 'Not/AZone')).toBe('2015-08-28');
  });
});

describe('compareTrips', () => {
  it('When trips fall on days that depend on their zones, then each counts on its own local day', () => {
    const evening = Date.UTC(2015, 7, 28, 5, 30) / 1000; // 2015-08-27 in Los Angeles, 2015-08-28 in UTC
    const morning = Date.UTC(2015, 7, 28, 16, 0) / 1000; // 2015-08-28 in Los Angeles, 2015-08-29 in Tokyo
    const emission = [
      trip(evening, evening + 900, 'America/Los_Angeles'),
      trip(morning, morning + 900, 'America/Los_Angeles'),
    ];
    const itinera = [trip(evening + 20, evening + 910), trip(morning + 5, morning + 880, 'Asia/Tokyo')];
    const result = compareTrips(emission, itinera);
    expect(result.days).toEqual([
      { localDate: '2015-08-27', emissionTrips: 1, itineraTrips: 0, matched: 1, share: 1 },
      { localDate: '2015-08-28', emissionTrips: 1, itineraTrips: 1, matched: 1, share: 1 },
      { localDate: '2015-08-29', emissionTrips: 0, itineraTrips: 1, matched: 0, share: 0 },
    ]);
    expect(result.total).toEqual({ emissionTrips: 2, itineraTrips: 2, matched: 2, share: 1 });
  });

  it('When Itinera splits one trip in two, then the day share counts the extra trip against it', () => {
    const result = compareTrips([trip(T0, T0 + 1200)], [trip(T0, T0 + 1190), trip(T0 + 1300, T0 + 1500)]);
    expect(result.days).toEqual([
      { localDate: '2015-08-27', emissionTrips: 1, itineraTrips: 2, matched: 1, share: 0.5 },
    ]);
  });

  it('When neither side has a trip, then there are no days and the total share is 1', () => {
    expect(compareTrips([], [])).toEqual({
      days: [],
      total: { emissionTrips: 0, itineraTrips: 0, matched: 0, share: 1 },
      pairs: [],
    });
  });

  it('When the shankari_2015-aug-27 ground truth is compared with itself, then all 8 trips match', () => {
    const trips = emissionTripsFromGroundTruth(readJson(GROUND_TRUTH));
    expect(trips).toHaveLength(8);
    expect(trips[0]).toEqual({ startTs: T0, endTs: 1440689408.302, timeZone: 'America/Los_Angeles' });
    const result = compareTrips(trips, trips);
    expect(result.total).toEqual({ emissionTrips: 8, itineraTrips: 8, matched: 8, share: 1 });
    expect(result.days).toEqual([{ localDate: '2015-08-27', emissionTrips: 8, itineraTrips: 8, matched: 8, share: 1 }]);
  });
});

describe('emissionTripsFromGroundTruth', () => {
  it('When a trip has its times on a trip feature instead of the collection, then they are found there', () => {
    const json = {
      data: [
        {
          type: 'FeatureCollection',
          properties: {},
          features: [
            { type: 'Feature', properties: { feature_type: 'start_place', exit_ts: 1 } },
            { type: 'Feature', properties: { feature_type: 'trip', start_ts: 10, end_ts: 20 } },
          ],
        },
      ],
    };
    expect(emissionTripsFromGroundTruth(json)).toEqual([{ startTs: 10, endTs: 20 }]);
  });

  it('When the document is not a ground truth, or a trip has no times, then ImportFormatError is thrown', () => {
    expect(() => emissionTripsFromGroundTruth([])).toThrow(ImportFormatError);
    expect(() => emissionTripsFromGroundTruth({ data: [{ properties: { start_ts: 1 } }] })).toThrow(/trip 0/);
  });
});

describe('emissionTripsFromEntries', () => {
  const entry = (key: string, startTs: number, extra: Record<string, unknown> = {}) => ({
    metadata: { key, time_zone: 'America/Los_Angeles', ...extra },
    data: { start_ts: startTs, end_ts: startTs + 100 },
  });

  it('When confirmed and cleaned trips are both there, then only the confirmed ones are taken', () => {
    const trips = emissionTripsFromEntries([
      entry('analysis/cleaned_trip', 1),
      entry('analysis/confirmed_trip', 2),
      entry('background/location', 3),
    ]);
    expect(trips).toEqual([{ startTs: 2, endTs: 102, timeZone: 'America/Los_Angeles' }]);
  });

  it('When there are no confirmed trips, then the cleaned ones are taken', () => {
    const trips = emissionTripsFromEntries([entry('analysis/cleaned_trip', 1), entry('analysis/cleaned_trip', 5)]);
    expect(trips.map((t) => t.startTs)).toEqual([1, 5]);
  });

  it('When a trip has no numeric times, then it is left out', () => {
    const bad = { metadata: { key: 'analysis/confirmed_trip' }, data: { start_ts: 'x', end_ts: 3 } };
    expect(emissionTripsFromEntries([bad])).toEqual([]);
  });

  it("When only composite trips exist, then the confirmed ones are taken in their start's zone, untracked time not", () => {
    const docs = readJson(COMPOSITES) as Array<{ metadata: Record<string, unknown>; data: Record<string, unknown> }>;
    const trips = emissionTripsFromEntries(docs);
    expect(trips).toHaveLength(3);
    // e-mission stamps server entries' metadata with America/Los_Angeles; the trip itself was in New York.
    expect(new Set(trips.map((t) => t.timeZone))).toEqual(new Set(['America/New_York']));
    expect(compareTrips(trips, trips).days.map((d) => d.localDate)).toEqual(['2023-03-12']);
  });
});
