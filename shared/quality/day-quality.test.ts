import { describe, expect, it } from 'vitest';
import type { SensedDay } from '../tables/participant-days.js';
import { shiftIsoDay } from '../time/calendar.js';
import { createDayQualityReader } from './day-quality.js';

const sensed = (localDate: string): SensedDay => ({
  localDate,
  dataQuarters: [40],
  locationQuarters: [40],
  motionQuarters: [],
  states: [],
  battery: null,
});

/** A participant sensed on the 1st and the 20th of May, nothing between. */
const rows = [sensed('2026-05-01'), sensed('2026-05-20')];
const reader = createDayQualityReader(
  {
    participantDays: {
      span: async () => ({ first: '2026-05-01', latest: '2026-05-20' }),
      read: async (_user, from, to) => rows.filter((r) => r.localDate >= from && r.localDate <= to),
    },
    labelCounts: { between: async () => new Map([['2026-05-20', { totalTrips: 2, labeledTrips: 1 }]]) },
  },
  { maxDays: 30 },
);

describe('reading a participant’s day quality', () => {
  it('When a range begins in a silence longer than the week read back, then its days are listed as days without data', async () => {
    const { days } = await reader('u', { from: '2026-05-12', to: '2026-05-20' });
    expect(days.map((d) => [d.localDate, d.score])).toEqual([
      ...['12', '13', '14', '15', '16', '17', '18', '19'].map((d) => [`2026-05-${d}`, 0]),
      ['2026-05-20', 0.02],
    ]);
    expect(days.at(-1)).toMatchObject({ trips: 2, labelledTrips: 1 });
  });

  it('When no range is given, then the 14 days up to the latest are read; before the first day nothing is listed', async () => {
    expect((await reader('u', {})).days.map((d) => d.localDate)).toEqual(
      Array.from({ length: 14 }, (_, i) => `2026-05-${String(7 + i).padStart(2, '0')}`),
    );
    expect((await reader('u', { from: '2026-04-25', to: '2026-05-02' })).days[0]?.localDate).toBe('2026-05-01');
  });

  it('When only a start long ago is given, or the range is reversed, then it is refused before anything is read', async () => {
    await expect(reader('u', { from: '2000-01-01' })).rejects.toThrow(/at most 30 days/);
    await expect(reader('u', { from: '2026-05-10', to: '2026-05-02' })).rejects.toThrow(/after/);
  });

  it('When a date is moved past either end of the calendar, then it stops at the end', () => {
    expect(shiftIsoDay('9999-12-31', 1)).toBe('9999-12-31');
    expect(shiftIsoDay('0000-01-01', -1)).toBe('0000-01-01');
    expect(shiftIsoDay('2016-02-28', 1)).toBe('2016-02-29');
  });
});
