import { describe, expect, it } from 'vitest';
import { dashboardPeriod, utcDate, weekOf } from './dashboard-weeks.js';

describe('dashboard weeks', () => {
  it('When a date is any day of a week, then its week is named by that Monday, across months and years', () => {
    expect(weekOf('2016-08-08')).toBe('2016-08-08');
    expect(weekOf('2016-08-10')).toBe('2016-08-08');
    expect(weekOf('2016-08-14')).toBe('2016-08-08');
    expect(weekOf('2016-08-15')).toBe('2016-08-15');
    expect(weekOf('2016-03-01')).toBe('2016-02-29');
    expect(weekOf('2017-01-01')).toBe('2016-12-26');
  });

  it('When a period ends on a Wednesday, then it holds whole weeks, the last one read to its Sunday', () => {
    const period = dashboardPeriod('2016-08-10', 3);
    expect(period.weeks).toEqual(['2016-07-25', '2016-08-01', '2016-08-08']);
    expect(period.dates).toHaveLength(21);
    expect(period.dates[0]).toBe('2016-07-25');
    expect(period.dates.at(-1)).toBe('2016-08-14');
    expect(new Set(period.dates).size).toBe(21);
  });

  it('When a period is one week over a change of year, then it is that week alone', () => {
    expect(dashboardPeriod('2016-12-31', 1)).toEqual({
      weeks: ['2016-12-26'],
      dates: ['2016-12-26', '2016-12-27', '2016-12-28', '2016-12-29', '2016-12-30', '2016-12-31', '2017-01-01'],
    });
  });

  it('When the time is just before midnight UTC, then today is still that UTC date', () => {
    expect(utcDate(Date.UTC(2016, 7, 10, 23, 59, 59))).toBe('2016-08-10');
  });
});
