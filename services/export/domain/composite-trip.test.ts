import { describe, expect, it } from 'vitest';
import {
  type CompositeTrip,
  flattenLabels,
  isUntracked,
  locationLonLat,
  locationsInTimeOrder,
  sectionMode,
  userInputData,
} from './composite-trip.js';

const trip = (data: Partial<CompositeTrip['data']>, origin_key = 'analysis/confirmed_trip'): CompositeTrip => ({
  _id: { $oid: 't1' },
  metadata: { key: 'analysis/composite_trip', origin_key },
  data: { start_ts: 100, end_ts: 200, ...data },
});

describe('flattenLabels', () => {
  it('keeps MULTILABEL strings and shows a survey by its label, else its name', () => {
    expect(
      flattenLabels({
        mode_confirm: 'walk',
        purpose_confirm: 'shopping',
        trip_user_input: { data: { label: '2 purposes, 1 mode', name: 'TripConfirmSurvey' } },
        other_survey: { data: { name: 'TimeUseSurvey' } },
      }),
    ).toEqual({
      mode_confirm: 'walk',
      purpose_confirm: 'shopping',
      trip_user_input: '2 purposes, 1 mode',
      other_survey: 'TimeUseSurvey',
    });
  });

  it('leaves out values that say nothing', () => {
    expect(flattenLabels({ a: null, b: { data: {} }, c: {} })).toEqual({});
    expect(flattenLabels(undefined)).toEqual({});
  });
});

describe('userInputData', () => {
  it('drops a survey entry envelope (and the user id in it)', () => {
    const survey = { _id: { $oid: 'x' }, user_id: { $uuid: 'u' }, data: { label: 'L' } } as never;
    expect(userInputData(survey)).toEqual({ label: 'L' });
    expect(userInputData('walk')).toBe('walk');
  });
});

describe('isUntracked', () => {
  it('recognises the untracked origin', () => {
    expect(isUntracked(trip({}, 'analysis/confirmed_untracked'))).toBe(true);
    expect(isUntracked(trip({}))).toBe(false);
    expect(isUntracked({ _id: { $oid: 'x' }, data: { start_ts: 0, end_ts: 1 } })).toBe(false);
  });
});

describe('sectionMode', () => {
  it('prefers the stored name and falls back to the e-mission enum', () => {
    expect(sectionMode({ data: { sensed_mode: 0, sensed_mode_str: 'IN_VEHICLE' } })).toBe('IN_VEHICLE');
    expect(sectionMode({ data: { sensed_mode: 2 } })).toBe('ON_FOOT');
    expect(sectionMode({})).toBe('');
  });
});

describe('locations', () => {
  it('reads loc first, latitude/longitude otherwise', () => {
    expect(locationLonLat({ data: { loc: { coordinates: [1, 2] }, longitude: 9, latitude: 9 } })).toEqual([1, 2]);
    expect(locationLonLat({ data: { longitude: 3, latitude: 4 } })).toEqual([3, 4]);
    expect(locationLonLat({ data: {} })).toBeUndefined();
  });

  it('orders by time and leaves out untimed locations', () => {
    const t = trip({ locations: [{ data: { ts: 3 } }, { data: {} }, { data: { ts: 1 } }, { data: { ts: 2 } }] });
    expect(locationsInTimeOrder(t).map((l) => l.data.ts)).toEqual([1, 2, 3]);
  });

  it('does not copy locations already in order', () => {
    const locations = [{ data: { ts: 1 } }, { data: { ts: 2 } }];
    expect(locationsInTimeOrder(trip({ locations }))).toBe(locations);
  });
});
