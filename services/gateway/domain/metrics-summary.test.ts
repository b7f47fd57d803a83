import { describe, expect, it } from 'vitest';
import {
  type ModeSummary,
  type SectionFact,
  summarizeByLocalDate,
  summarizeByTimestamp,
  wholeTimestampBins,
} from './metrics-summary.js';

const AUG27 = 1440633600; // 2015-08-27T00:00:00Z
const s = (userId: string, startTs: number, mode: string, distance: number, duration: number): SectionFact => ({
  userId,
  startTs,
  timeZone: 'America/Los_Angeles',
  mode,
  distance,
  duration,
});

describe('metrics', () => {
  const sections = [
    s('a', AUG27 + 16 * 3600, 'ON_FOOT', 1000, 500),
    s('a', AUG27 + 17 * 3600, 'ON_FOOT', 600, 600),
    s('a', AUG27 + 18 * 3600, 'IN_VEHICLE', 20_000, 1000),
    s('b', AUG27 + 3 * 86_400 + 3600, 'BICYCLING', 3000, 600),
  ];

  it('counts, sums and averages per mode in UTC day bins, empty bins included', () => {
    const count = summarizeByTimestamp(sections, 'D', 'count');
    expect(count.map((b) => b.ts)).toEqual([AUG27, AUG27 + 86_400, AUG27 + 2 * 86_400, AUG27 + 3 * 86_400]);
    expect(count[0]).toMatchObject({ ON_FOOT: 2, IN_VEHICLE: 1, nUsers: 1, fmt_time: '2015-08-27T00:00:00+00:00' });
    expect(count[1]).toEqual(expect.objectContaining({ nUsers: 0 }));
    expect(Object.keys(count[1]!)).not.toContain('ON_FOOT');
    expect(summarizeByTimestamp(sections, 'D', 'distance')[0]).toMatchObject({ ON_FOOT: 1600, IN_VEHICLE: 20_000 });
    expect(summarizeByTimestamp(sections, 'D', 'duration')[0]).toMatchObject({ ON_FOOT: 1100 });
    // mean of 1000/500 = 2 and 600/600 = 1
    expect(summarizeByTimestamp(sections, 'D', 'mean_speed')[0]).toMatchObject({ ON_FOOT: 1.5, IN_VEHICLE: 20 });
    expect(summarizeByTimestamp(sections, 'D', 'median_speed')[0]).toMatchObject({ ON_FOOT: 1.5 });
  });

  it('groups by local date, only non-empty groups, stamped at local midnight', () => {
    const monthly = summarizeByLocalDate(sections, 'MONTHLY', 'count');
    expect(monthly).toHaveLength(1);
    expect(monthly[0]).toMatchObject({ fmt_time: '2015-08', ON_FOOT: 2, IN_VEHICLE: 1, BICYCLING: 1, nUsers: 2 });
    const daily = summarizeByLocalDate(sections, 'DAILY', 'count');
    expect(daily.map((d) => d.fmt_time)).toEqual(['2015-08-27', '2015-08-29']);
    expect(daily[0]!.ts).toBe(AUG27 + 7 * 3600); // midnight in Los Angeles (PDT)
  });
});

describe('metrics at scale and for aggregates', () => {
  it('When 40,000 sections fall in one bin, then every one of them is counted and summed', () => {
    const many = Array.from({ length: 40_000 }, (_, i) =>
      s(`u${i % 7}`, AUG27 + (i % 80_000), i % 2 ? 'ON_FOOT' : 'IN_VEHICLE', 10, 5),
    );
    const count = summarizeByTimestamp(many, 'D', 'count');
    const local = summarizeByLocalDate(many, 'DAILY', 'distance');
    expect(count[0]).toMatchObject({ ON_FOOT: 20_000, IN_VEHICLE: 20_000, nUsers: 7 });
    expect(local.reduce((n, b) => n + Number(b['ON_FOOT'] ?? 0), 0)).toBe(200_000);
  });

  it('When a bin or a mode has fewer than k distinct users, then its values are withheld', () => {
    const five = ['a', 'b', 'c', 'd', 'e'].map((u) => s(u, AUG27 + 3600, 'ON_FOOT', 100, 50));
    const loneCyclist = s('a', AUG27 + 7200, 'BICYCLING', 8400, 1200);
    const nextDayLone = s('f', AUG27 + 86_400 + 3600, 'IN_VEHICLE', 30_000, 1800);
    const bins = summarizeByTimestamp([...five, loneCyclist, nextDayLone], 'D', 'distance', { minUsers: 5 });
    expect(bins).toHaveLength(2);
    expect(bins[0]).toMatchObject({ ts: AUG27, nUsers: 5, ON_FOOT: 500 });
    expect(Object.keys(bins[0]!)).not.toContain('BICYCLING');
    // The second day has one user: the bin stays (the series is regular) but says nothing about anyone.
    expect(bins[1]).toMatchObject({ ts: AUG27 + 86_400, nUsers: 0 });
    expect(Object.keys(bins[1]!).sort()).toEqual(['fmt_time', 'local_dt', 'nUsers', 'ts']);
    // Without k (a user's own metrics) everything shows.
    expect(summarizeByTimestamp([loneCyclist], 'D', 'distance')[0]).toMatchObject({ BICYCLING: 8400, nUsers: 1 });
  });

  it('When stored modes are named like Object properties, then they are ordinary keys of the bin', () => {
    const odd = [
      s('a', AUG27, '__proto__', 5, 1),
      s('a', AUG27 + 1, 'constructor', 7, 1),
      s('a', AUG27 + 2, 'ts', 1, 1),
    ];
    const [bin] = summarizeByTimestamp(odd, 'D', 'distance');
    expect(Object.hasOwn(bin!, '__proto__')).toBe(true);
    expect(bin!['constructor']).toBe(7);
    expect(bin!.ts).toBe(AUG27);
  });
});

describe('aggregates cannot be undone by subtraction', () => {
  const SEP1 = Date.UTC(2015, 8, 1) / 1000;
  const DAY = 86_400;
  const users = ['a', 'b', 'c', 'd', 'e'];
  // Sep 2 (noon UTC, morning in Los Angeles): five walk, five cycle. Sep 4: one person walks and cycles alone.
  // Sep 6: five walk, and one of them drives alone.
  const sections = [
    ...users.map((u, i) => s(u, SEP1 + DAY + 43_200 + i * 60, 'ON_FOOT', 1000, 500)),
    ...users.map((u, i) => s(u, SEP1 + DAY + 50_000 + i * 60, 'BICYCLING', 500, 100)),
    s('f', SEP1 + 3 * DAY + 43_200, 'ON_FOOT', 3333, 1000),
    s('f', SEP1 + 3 * DAY + 50_000, 'BICYCLING', 2222, 400),
    ...users.map((u, i) => s(u, SEP1 + 5 * DAY + 43_200 + i * 60, 'ON_FOOT', 100, 50)),
    s('b', SEP1 + 5 * DAY + 60_000, 'IN_VEHICLE', 9999, 600),
  ];
  const k = { minUsers: 5 };
  /** Per mode, the sum of a series' visible values. */
  const sums = (bins: ModeSummary[]) => {
    const out: Record<string, number> = {};
    for (const b of bins)
      for (const [mode, v] of Object.entries(b))
        if (!['ts', 'local_dt', 'fmt_time', 'nUsers'].includes(mode)) out[mode] = (out[mode] ?? 0) + Number(v);
    return out;
  };
  const modesOf = (b: ModeSummary) => sums([b]);

  it('When a month holds a day below k, then the month is the sum of its visible days, per mode too', () => {
    for (const metric of ['count', 'distance', 'duration'] as const) {
      const [month] = summarizeByTimestamp(sections, 'M', metric, k);
      const days = summarizeByTimestamp(sections, 'D', metric, k);
      expect(modesOf(month!), metric).toEqual(sums(days));
    }
    const [month] = summarizeByTimestamp(sections, 'M', 'distance', k);
    // Not 6277 + 3333 and 2500 + 2222: the lone traveller of Sep 4 is nowhere in it.
    expect(month).toMatchObject({ ts: SEP1, nUsers: 5, ON_FOOT: 5500, BICYCLING: 2500 });
    expect(Object.keys(month!)).not.toContain('IN_VEHICLE');
    for (const freq of ['MONTHLY', 'YEARLY'] as const) {
      const [local] = summarizeByLocalDate(sections, freq, 'distance', k);
      expect(modesOf(local!), freq).toEqual(sums(summarizeByLocalDate(sections, 'DAILY', 'distance', k)));
    }
    // Local-date aggregate bins below k are left out, not answered empty.
    expect(summarizeByLocalDate(sections, 'DAILY', 'count', k).map((b) => b.fmt_time)).toEqual([
      '2015-09-02',
      '2015-09-06',
    ]);
  });

  it('When the same sections are summed for one user (k = 1), then months hold every day', () => {
    const [month] = summarizeByTimestamp(sections, 'M', 'distance');
    expect(month).toMatchObject({ ON_FOOT: 5500 + 3333, BICYCLING: 2500 + 2222, IN_VEHICLE: 9999, nUsers: 6 });
    const [year] = summarizeByLocalDate(sections, 'YEARLY', 'count');
    expect(year).toMatchObject({ fmt_time: '2015', ON_FOOT: 11, BICYCLING: 6, IN_VEHICLE: 1, nUsers: 6 });
  });

  it('When an aggregate range is widened to whole bins, then every bin of it is answered, data or not', () => {
    expect(wholeTimestampBins('D', SEP1 + 100, SEP1 + DAY + 5)).toEqual({
      startTs: SEP1,
      endTs: SEP1 + 2 * DAY - 1e-3,
    });
    const oct1 = Date.UTC(2015, 9, 1) / 1000;
    expect(wholeTimestampBins('M', SEP1 + 3 * DAY, SEP1 + 4 * DAY)).toEqual({ startTs: SEP1, endTs: oct1 - 1e-3 });
    const span = wholeTimestampBins('D', SEP1, SEP1 + 6 * DAY);
    const days = summarizeByTimestamp(sections, 'D', 'count', { ...k, span });
    expect(days.map((b) => (b.ts - SEP1) / DAY)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(days[0]).toMatchObject({ nUsers: 0 });
    expect(summarizeByTimestamp([], 'D', 'count', { ...k, span })).toHaveLength(7);
  });
});
