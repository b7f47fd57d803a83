import { describe, expect, it } from 'vitest';
import { dayTripsFrom } from './day-from-composites.js';

const point = (lon: number, lat: number) => ({ type: 'Point', coordinates: [lon, lat] });

describe('dayTripsFrom', () => {
  it('draws each section from its own locations, with labels, notes, places and the stop between sections', () => {
    const trip = {
      _id: { $oid: 't1' },
      metadata: { origin_key: 'analysis/confirmed_trip' },
      data: {
        start_ts: 100,
        end_ts: 400,
        start_fmt_time: '2016-08-27T08:15:03-07:00',
        end_fmt_time: '2016-08-27T08:20:03-07:00',
        distance: 1500,
        duration: 300,
        start_confirmed_place: { data: { location: point(1, 1) } },
        end_confirmed_place: { data: { location: point(3, 3) } },
        sections: [
          { _id: { $oid: 's1' }, data: { sensed_mode_str: 'WALKING', start_ts: 100, end_ts: 200, distance: 500 } },
          {
            _id: { $oid: 's2' },
            data: {
              sensed_mode_str: 'BUS',
              start_ts: 200,
              end_ts: 400,
              distance: 1000,
              start_loc: point(2, 2),
              end_loc: point(3, 3),
            },
          },
        ],
        locations: [
          { data: { section: { $oid: 's1' }, loc: point(1, 1) } },
          { data: { section: { $oid: 's1' }, loc: point(2, 2) } },
        ],
        user_input: { mode_confirm: 'bus', trip_user_input: { data: { name: 'TripConfirmSurvey' } } },
        additions: [{ data: { label: 'late again' } }],
      },
    };
    const untracked = {
      _id: { $oid: 'u1' },
      metadata: { origin_key: 'analysis/confirmed_untracked' },
      data: { start_ts: 50 },
    };
    const [first, second] = dayTripsFrom([trip, untracked]);
    expect(first?.untracked).toBe(true);
    expect(second).toMatchObject({
      tripId: 't1',
      modes: ['WALKING', 'BUS'],
      labels: { mode_confirm: 'bus', trip_user_input: 'TripConfirmSurvey' },
      notes: ['late again'],
      startPlace: [1, 1],
      endPlace: [3, 3],
      stops: [[2, 2]],
    });
    expect(second?.sections.map((s) => s.coordinates)).toEqual([
      [
        [1, 1],
        [2, 2],
      ],
      [
        [2, 2],
        [3, 3],
      ],
    ]);
  });
});
