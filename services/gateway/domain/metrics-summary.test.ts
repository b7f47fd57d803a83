import { describe, expect, it } from 'vitest';
import { type SectionFact, summarizeByLocalDate, summarizeByTimestamp } from './metrics-summary.js';

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
