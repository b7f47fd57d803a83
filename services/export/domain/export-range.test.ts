import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../shared/errors/index.js';
import { datesOf, dayRange, MAX_EXPORT_DAYS, parseExportRange, utcDate } from './export-range.js';

const midnight = (date: string) => Date.parse(`${date}T00:00:00Z`) / 1000;

describe('parseExportRange', () => {
  it('covers whole UTC days, both included, ending a microsecond before the next midnight', () => {
    const range = parseExportRange({ start_date: '2016-08-10', end_date: '2016-08-11' }, '2026-01-01');
    expect(range).toEqual({
      fromDate: '2016-08-10',
      toDate: '2016-08-11',
      fromTs: midnight('2016-08-10'),
      toTs: midnight('2016-08-12') - 1e-6,
      days: 2,
    });
    expect(range.toTs).toBeLessThan(midnight('2016-08-12'));
  });

  it('defaults to the last 30 days ending today, or ending with end_date', () => {
    expect(parseExportRange({}, '2024-03-10')).toMatchObject({
      fromDate: '2024-02-10',
      toDate: '2024-03-10',
      days: 30,
    });
    expect(parseExportRange({ end_date: '2016-08-10' }, '2024-03-10')).toMatchObject({
      fromDate: '2016-07-12',
      days: 30,
    });
    expect(parseExportRange({ start_date: '2024-03-01' }, '2024-03-10')).toMatchObject({
      toDate: '2024-03-10',
      days: 10,
    });
  });

  it('takes a leap year whole, and refuses one day more with the limit named', () => {
    expect(parseExportRange({ start_date: '2024-01-01', end_date: '2024-12-31' }, '2025-01-01').days).toBe(366);
    const tooLong = () => parseExportRange({ start_date: '2023-01-01', end_date: '2024-01-02' }, '2025-01-01');
    expect(tooLong).toThrow(ValidationError);
    expect(tooLong).toThrow(`at most ${MAX_EXPORT_DAYS} days, this one 367`);
    expect(
      parseExportRange({ start_date: '2015-01-01', end_date: '2024-01-02' }, '2025-01-01', { maxDays: Infinity }).days,
    ).toBe(3289);
  });

  it('answers every real calendar date, the first and last years included, as the dates asked', () => {
    const first = parseExportRange({ start_date: '0001-01-01', end_date: '0001-01-02' }, '2026-01-01');
    expect(first).toMatchObject({ fromDate: '0001-01-01', toDate: '0001-01-02', days: 2 });
    expect(first.fromTs).toBe(Date.parse('0001-01-01T00:00:00Z') / 1000);
    const last = parseExportRange({ start_date: '9999-12-31', end_date: '9999-12-31' }, '2026-01-01');
    expect(last).toMatchObject({ fromDate: '9999-12-31', toDate: '9999-12-31', days: 1 });
    expect(last.toTs).toBe(Date.parse('9999-12-31T00:00:00Z') / 1000 + 86_400 - 1e-6);
    expect(parseExportRange({ end_date: '0050-03-01' }, '2026-01-01').fromDate).toBe('0050-01-31');
  });

  it.each([
    [{ start_date: '0000-01-01' }, 'start_date'],
    [{ start_date: '1900-02-29' }, 'start_date'],
    [{ start_date: '2003-02-31' }, 'start_date'],
    [{ end_date: '2016-8-10' }, 'end_date'],
    [{ end_date: 20160810 }, 'end_date'],
    [{ start_date: null }, 'start_date'],
    [{ start_date: '2016-08-11', end_date: '2016-08-10' }, 'start_date'],
  ])('refuses %j naming %s', (fields, field) => {
    expect(() => parseExportRange(fields, '2024-01-01')).toThrow(
      expect.objectContaining({ details: { field } }) as Error,
    );
  });
});

describe('days of a range', () => {
  it('lists each date once, across a month and a leap day', () => {
    expect([...datesOf(parseExportRange({ start_date: '2024-02-28', end_date: '2024-03-01' }, '2024-03-01'))]).toEqual([
      '2024-02-28',
      '2024-02-29',
      '2024-03-01',
    ]);
    expect([...datesOf(dayRange('2016-08-10'))]).toEqual(['2016-08-10']);
  });

  it('knows today in UTC', () => {
    expect(utcDate(Date.parse('2016-08-10T23:59:59-07:00'))).toBe('2016-08-11');
  });
});
