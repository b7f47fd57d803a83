import { describe, expect, it } from 'vitest';
import { type LabelMetricsDay, type LabelTripFact, summarizeLabelMetrics } from './label-metrics.js';
import { DASHBOARD_METRICS, publicAggregates, type DashboardContext } from './public-aggregates.js';

const K = 3;

const trip = (userId: string, localDate: string, labels: Partial<LabelTripFact> = {}): LabelTripFact => ({
  userId,
  localDate,
  startTs: Date.parse(localDate) / 1000,
  modeConfirm: 'UNLABELED',
  purposeConfirm: 'UNLABELED',
  replacedModeConfirm: 'UNLABELED',
  mode: 'WALKING',
  distance: 2000,
  duration: 600,
  responded: false,
  ...labels,
});

const walkToWork = (distance: number) => ({ modeConfirm: 'walk', mode: 'walk', purposeConfirm: 'work', distance });

const FACTS: LabelTripFact[] = [
  // Week of 1 August: three participants, but never three on one day, so no day and no week shows.
  trip('a', '2016-08-02', walkToWork(1000)),
  trip('b', '2016-08-02', walkToWork(1000)),
  trip('c', '2016-08-03', walkToWork(1000)),
  // Week of 8 August: a, b and c walk to work twice and make an unlabelled trip each; d alone drives, a alone
  // takes the gondola for leisure.
  ...['a', 'b', 'c'].flatMap((u) => [
    trip(u, '2016-08-10', walkToWork(1000)),
    trip(u, '2016-08-10'),
    trip(u, '2016-08-11', walkToWork(500)),
  ]),
  trip('d', '2016-08-10', { modeConfirm: 'car', mode: 'car', purposeConfirm: 'work', distance: 8000 }),
  trip('a', '2016-08-10', { modeConfirm: 'gondola', mode: 'gondola', purposeConfirm: 'leisure', distance: 5000 }),
];

const FACTORS = new Map([
  ['walk', 0],
  ['car', 0.2],
  ['gondola', 0.05],
]);

const LABEL_OPTIONS = { MODE: [{ value: 'walk', kgCo2PerKm: 0 }], translations: { en: { walk: 'Walk' } } };

function days(footprint: ReadonlyMap<string, number> | undefined = FACTORS): LabelMetricsDay[] {
  const options = { minUsers: K, now: 0, ...(footprint ? { footprint } : {}) };
  return summarizeLabelMetrics(FACTS, DASHBOARD_METRICS, 'days', options) as LabelMetricsDay[];
}

const CONTEXT: DashboardContext = {
  program: 'ride',
  name: 'Ride Study',
  k: K,
  weeks: ['2016-08-01', '2016-08-08'],
  endDate: '2016-08-11',
  sections: ['trips', 'distance', 'mode_share', 'labelled_share', 'footprint'],
  labelOptions: LABEL_OPTIONS,
  hasFootprint: true,
  generatedAt: '2016-08-12T00:00:00.000Z',
};

describe('a program’s public aggregates', () => {
  const out = publicAggregates(days(), CONTEXT);

  it('When labels pass k on their days, then each week sums them by mode and by purpose, in trips and km', () => {
    expect(out.trips).toEqual({
      by_mode: [
        { week: '2016-08-08', label: 'UNLABELED', value: 3 },
        { week: '2016-08-08', label: 'walk', value: 6 },
      ],
      by_purpose: [
        { week: '2016-08-08', label: 'UNLABELED', value: 3 },
        { week: '2016-08-08', label: 'work', value: 7 },
      ],
    });
    expect(out.distance_km).toEqual({
      by_mode: [
        { week: '2016-08-08', label: 'UNLABELED', value: 6 },
        { week: '2016-08-08', label: 'walk', value: 4.5 },
      ],
      by_purpose: [
        { week: '2016-08-08', label: 'UNLABELED', value: 6 },
        { week: '2016-08-08', label: 'work', value: 12.5 },
      ],
    });
  });

  it('When a label has fewer than k participants, then it is nowhere in the answer, not even as a zero or a name', () => {
    const text = JSON.stringify(out);
    for (const hidden of ['gondola', 'leisure', '"car"']) expect(text).not.toContain(hidden);
    // The car trip still counts under its purpose, which three others share: only the car label is withheld.
    expect(out.trips?.by_purpose.find((b) => b.label === 'work')?.value).toBe(7);
  });

  it('When each day of a week has fewer than k participants, then the week shows nothing, though it has k in all', () => {
    const bins = [...out.trips!.by_mode, ...out.distance_km!.by_purpose, ...out.footprint_kg_co2!.by_mode];
    expect(bins.filter((b) => b.week === '2016-08-01')).toEqual([]);
    expect(out.weeks).toEqual(['2016-08-01', '2016-08-08']);
    expect(out.labelled_share?.map((w) => w.week)).toEqual(['2016-08-08']);
  });

  it('When trips are labelled, then the mode share counts labelled trips only and the labelled share counts the week', () => {
    expect(out.mode_share).toEqual([{ label: 'walk', trips: 6, share: 1 }]);
    expect(out.labelled_share).toEqual([{ week: '2016-08-08', labelled: 6, unlabelled: 3, share: 0.667 }]);
  });

  it('When the label options give factors, then the footprint is by mode, only where a mode has one', () => {
    expect(out.footprint_kg_co2).toEqual({ by_mode: [{ week: '2016-08-08', label: 'walk', value: 0 }] });
    expect(publicAggregates(days(undefined), { ...CONTEXT, hasFootprint: false }).footprint_kg_co2).toBeNull();
  });

  it('When the answer is made, then it names the program, its period and k, and the labels it uses by name', () => {
    expect(out).toMatchObject({
      program: 'ride',
      name: 'Ride Study',
      k: K,
      first_date: '2016-08-01',
      last_date: '2016-08-11',
      generated_at: '2016-08-12T00:00:00.000Z',
      sections: CONTEXT.sections,
    });
    expect(out.labels).toEqual([
      { value: 'UNLABELED', name: 'Not labelled' },
      { value: 'walk', name: 'Walk' },
      { value: 'work', name: 'Work' },
    ]);
  });

  it('When the program shows some sections only, then the others are absent and so are the labels only they use', () => {
    const some = publicAggregates(days(), { ...CONTEXT, sections: ['mode_share', 'footprint'] });
    expect(some.mode_share).toEqual(out.mode_share);
    expect(some.footprint_kg_co2).toEqual(out.footprint_kg_co2);
    expect(some).not.toHaveProperty('trips');
    expect(some).not.toHaveProperty('distance_km');
    expect(some).not.toHaveProperty('labelled_share');
    expect(some.labels).toEqual([{ value: 'walk', name: 'Walk' }]);
  });
});
