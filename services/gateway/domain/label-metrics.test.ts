import { describe, expect, it } from 'vitest';
import {
  footprintFactors,
  type LabelMetricList,
  type LabelMetricsByMetric,
  type LabelMetricsDay,
  type LabelTripFact,
  summarizeLabelMetrics,
} from './label-metrics.js';

const trip = (userId: string, localDate: string, labels: Partial<LabelTripFact> = {}): LabelTripFact => ({
  userId,
  localDate,
  startTs: Date.parse(localDate) / 1000,
  modeConfirm: 'UNLABELED',
  purposeConfirm: 'UNLABELED',
  replacedModeConfirm: 'UNLABELED',
  mode: 'WALKING',
  distance: 1000,
  duration: 600,
  responded: false,
  ...labels,
});

const MODE: LabelMetricList = [
  { metric: 'distance', dimensions: ['mode_confirm', 'purpose_confirm'] },
  { metric: 'count', dimensions: ['mode_confirm'] },
];

describe('label metrics', () => {
  const facts = [
    trip('a', '2024-05-01', { modeConfirm: 'e-car', mode: 'e-car', purposeConfirm: 'work', distance: 1500 }),
    trip('b', '2024-05-01', { modeConfirm: 'e-car', mode: 'e-car', distance: 500 }),
    trip('b', '2024-05-01'),
    trip('c', '2024-05-02', { modeConfirm: 'bike', mode: 'bike' }),
  ];

  it('When asked in the old form, then each metric lists its days with nUsers and <dimension>_<value> sums, unlabelled trips under UNLABELED', () => {
    const out = summarizeLabelMetrics(facts, MODE, 'by_metric') as LabelMetricsByMetric;
    expect(Object.keys(out)).toEqual(['distance', 'count']);
    expect(out['distance']).toEqual([
      {
        date: '2024-05-01',
        nUsers: 2,
        mode_confirm_UNLABELED: 1000,
        'mode_confirm_e-car': 2000,
        purpose_confirm_UNLABELED: 1500,
        purpose_confirm_work: 1500,
      },
      { date: '2024-05-02', nUsers: 1, mode_confirm_bike: 1000, purpose_confirm_UNLABELED: 1000 },
    ]);
    expect(out['count']![0]).toEqual({
      date: '2024-05-01',
      nUsers: 2,
      mode_confirm_UNLABELED: 1,
      'mode_confirm_e-car': 2,
    });
  });

  it('When asked in the new form, then there is one entry per metric and day with its dimensions as value/measure lists', () => {
    const out = summarizeLabelMetrics(facts, MODE, 'days', { now: 1_700_000_000 }) as LabelMetricsDay[];
    expect(out.map((d) => `${d.metric} ${d.date}`)).toEqual([
      'distance 2024-05-01',
      'distance 2024-05-02',
      'count 2024-05-01',
      'count 2024-05-02',
    ]);
    expect(out[0]).toEqual({
      date: '2024-05-01',
      metric: 'distance',
      nUsers: 2,
      dimensions: {
        mode_confirm: [
          { value: 'UNLABELED', measure: 1000 },
          { value: 'e-car', measure: 2000 },
        ],
        purpose_confirm: [
          { value: 'UNLABELED', measure: 1500 },
          { value: 'work', measure: 1500 },
        ],
      },
      last_updated: 1_700_000_000,
    });
  });

  it('When responses are counted, then a trip is responded under a value unless it is UNLABELED or UNKNOWN, and duration and mode are summed', () => {
    const list: LabelMetricList = [
      { metric: 'response_count', dimensions: ['mode_confirm', 'mode'] },
      { metric: 'duration', dimensions: ['mode', 'primary_ble_sensed_mode'] },
    ];
    const out = summarizeLabelMetrics(facts, list, 'by_metric') as LabelMetricsByMetric;
    expect(out['response_count']![0]).toMatchObject({
      'mode_confirm_e-car': { responded: 2, not_responded: 0 },
      mode_confirm_UNLABELED: { responded: 0, not_responded: 1 },
      mode_WALKING: { responded: 1, not_responded: 0 },
    });
    expect(out['duration']![0]).toMatchObject({
      'mode_e-car': 1200,
      mode_WALKING: 600,
      primary_ble_sensed_mode_UNKNOWN: 1800,
    });
  });

  it('When fewer than k users make a day, then the day is left out; within a day, a value of fewer than k users is left out', () => {
    const many = [
      ...['u1', 'u2', 'u3'].map((u) => trip(u, '2024-05-01', { modeConfirm: 'bus', mode: 'bus' })),
      trip('u4', '2024-05-01', { modeConfirm: 'e-bike', mode: 'e-bike', distance: 8400 }),
      trip('u1', '2024-05-02', { modeConfirm: 'bus', mode: 'bus' }),
      trip('u2', '2024-05-02', { modeConfirm: 'bus', mode: 'bus' }),
    ];
    const list: LabelMetricList = [{ metric: 'distance', dimensions: ['mode_confirm'] }];
    const out = summarizeLabelMetrics(many, list, 'by_metric', { minUsers: 3 }) as LabelMetricsByMetric;
    expect(out['distance']).toEqual([{ date: '2024-05-01', nUsers: 4, mode_confirm_bus: 3000 }]);
    const days = summarizeLabelMetrics(many, list, 'days', { minUsers: 5 }) as LabelMetricsDay[];
    expect(days).toEqual([]);
    expect(summarizeLabelMetrics(many, list, 'by_metric', { minUsers: 5 })).toEqual({ distance: [] });
  });

  it('When label_options give kg CO2 per km, then footprint sums each trip by its mode label; without them its days carry no values', () => {
    const factors = footprintFactors({
      label_options: {
        MODE: [
          { value: 'e-car', baseMode: 'E_CAR', kgCo2PerKm: 0.08 },
          { value: 'bike', baseMode: 'BICYCLING', kgCo2PerKm: 0 },
          { value: 'odd', kgCo2PerKm: 'much' },
        ],
      },
    });
    expect(factors).toEqual(
      new Map([
        ['e-car', 0.08],
        ['bike', 0],
      ]),
    );
    const list: LabelMetricList = [{ metric: 'footprint', dimensions: ['mode_confirm', 'purpose_confirm'] }];
    const out = summarizeLabelMetrics(facts, list, 'by_metric', { footprint: factors }) as LabelMetricsByMetric;
    const day = out['footprint']![0]!;
    expect((day['mode_confirm_e-car'] as { kg_co2: number }).kg_co2).toBeCloseTo(0.16);
    // The work trip: 1.5 km by e-car.
    expect((day['purpose_confirm_work'] as { kg_co2: number }).kg_co2).toBeCloseTo(0.12);
    // The sensed-only walk has no factor: no value of its own.
    expect(day).not.toHaveProperty('mode_confirm_UNLABELED');
    expect(out['footprint']![1]).toEqual({
      date: '2024-05-02',
      nUsers: 1,
      mode_confirm_bike: { kg_co2: 0 },
      purpose_confirm_UNLABELED: { kg_co2: 0 },
    });

    expect(footprintFactors(undefined)).toBeUndefined();
    expect(footprintFactors({ label_options: {} })).toBeUndefined();
    const bare = summarizeLabelMetrics(facts, list, 'by_metric') as LabelMetricsByMetric;
    expect(bare['footprint']).toEqual([
      { date: '2024-05-01', nUsers: 2 },
      { date: '2024-05-02', nUsers: 1 },
    ]);
  });

  it('When labels are odd names, then they stay ordinary keys', () => {
    const odd = [
      trip('a', '2024-05-01', { modeConfirm: '__proto__' }),
      trip('a', '2024-05-01', { purposeConfirm: 'constructor' }),
    ];
    const out = summarizeLabelMetrics(odd, MODE, 'by_metric') as LabelMetricsByMetric;
    expect(out['count']![0]).toEqual({
      date: '2024-05-01',
      nUsers: 1,
      mode_confirm___proto__: 1,
      mode_confirm_UNLABELED: 1,
    });
    expect(Object.getPrototypeOf(out['count']![0])).toBe(Object.prototype);
  });
});
