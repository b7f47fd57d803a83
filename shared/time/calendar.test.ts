import { describe, expect, it } from 'vitest';
import { dayNumber, daysInMonth, isoDay, parseIsoDay, partialDateProblem, timestampProblem } from './calendar.js';

describe('calendar', () => {
  it('When a day does not exist, then it is refused instead of rolling over', () => {
    expect(parseIsoDay('2003-02-31')).toBeUndefined();
    expect(parseIsoDay('2003-02-29')).toBeUndefined();
    expect(parseIsoDay('2004-02-29')).toEqual({ year: 2004, month: 2, day: 29 });
    expect(parseIsoDay('1900-02-29')).toBeUndefined();
    expect(parseIsoDay('2016-13-01')).toBeUndefined();
    expect(parseIsoDay('2016-00-10')).toBeUndefined();
    expect(parseIsoDay('2016-06-00')).toBeUndefined();
    expect(parseIsoDay('0000-01-01')).toBeUndefined();
    expect(parseIsoDay('9999-12-31')).toBeUndefined();
    expect(parseIsoDay('2016-6-1')).toBeUndefined();
    expect(parseIsoDay('2016-06-15')).toEqual({ year: 2016, month: 6, day: 15 });
  });

  it('When local date fields are wrong, then the problem names the field and the allowed values', () => {
    expect(partialDateProblem({ year: 2015, month: 13 }, 'start_time')).toMatch(/^start_time\.month .*1 to 12.*13/);
    expect(partialDateProblem({ year: 2015, month: 4, day: 31 }, 'end_time')).toMatch(/^end_time\.day .*1 to 30/);
    expect(partialDateProblem({ year: 2016, month: 2, day: 29 }, 'x')).toBeUndefined();
    expect(partialDateProblem({ year: 2015, month: 2, day: 29 }, 'x')).toMatch(/x\.day/);
    expect(partialDateProblem({ year: 1e9 }, 'x')).toMatch(/x\.year/);
    expect(partialDateProblem({ year: 2015.5 }, 'x')).toMatch(/x\.year/);
    expect(partialDateProblem({ year: '2015' }, 'x')).toMatch(/x\.year.*"2015"/);
    expect(partialDateProblem({ year: 2015, day: 3 }, 'x')).toMatch(/x\.day needs x\.month/);
    expect(partialDateProblem({ year: 2015 }, 'x')).toBeUndefined();
  });

  it('When timestamps fall outside 0..1e10 or are not numbers, then they are refused', () => {
    expect(timestampProblem(1440633600, 'start_time')).toBeUndefined();
    expect(timestampProblem(0, 'start_time')).toBeUndefined();
    expect(timestampProblem(-1, 'start_time')).toMatch(/start_time must be between 0 and/);
    expect(timestampProblem(1e10, 'end_time')).toMatch(/end_time/);
    expect(timestampProblem(Number.NaN, 'end_time')).toMatch(/end_time must be a number/);
    expect(timestampProblem('1440633600', 'end_time')).toMatch(/end_time must be a number/);
  });

  it('When days are counted, then leap years and month lengths are the Gregorian ones', () => {
    expect(daysInMonth(2000, 2)).toBe(29);
    expect(daysInMonth(2100, 2)).toBe(28);
    expect(daysInMonth(2015, 12)).toBe(31);
    expect(dayNumber({ year: 1970, month: 1, day: 2 })).toBe(1);
    expect(dayNumber({ year: 2015, month: 8, day: 27 })).toBe(1440633600 / 86_400);
    expect(isoDay({ year: 2015, month: 8, day: 7 })).toBe('2015-08-07');
  });
});
