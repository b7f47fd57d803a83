import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../shared/errors/index.js';
import { parseFindEntriesQuery, planFindEntries } from './parse-find-entries-query.js';

const NOW = 1_700_000_000.5;
const parse = (b: Record<string, unknown>) => parseFindEntriesQuery(b, { nowS: NOW });

describe('parseFindEntriesQuery', () => {
  it('When only keys are sent, then all time up to a day from now, by write_ts, sampled', () => {
    expect(parse({ key_list: ['background/location', 'background/location'] })).toEqual({
      keys: ['background/location'],
      keyTime: 'metadata.write_ts',
      timeKey: 'metadata.write_ts',
      start: 0,
      end: 1_700_000_000 + 86_400,
      maxEntries: undefined,
      trunc: 'sample',
    });
  });

  it('When the app asks from end_ts - 10 = -10 on data.end_ts, then from 0, and no raw index for that key', () => {
    const q = parse({ key_list: ['analysis/composite_trip'], key_time: 'data.end_ts', start_time: -10, end_time: 5 });
    expect(q).toMatchObject({ start: 0, end: 5, keyTime: 'data.end_ts', timeKey: undefined });
  });

  it('When key_list is null, then every key', () => {
    expect(parse({ key_list: null }).keys).toBeNull();
  });

  it.each<[string, Record<string, unknown>, string | undefined]>([
    ['a key_list of numbers', { key_list: [1] }, 'key_list'],
    ['101 keys', { key_list: Array.from({ length: 101 }, (_, i) => `k${i}`) }, 'key_list'],
    ['a key_time object', { key_time: {} }, 'key_time'],
    ['an end past 1e10', { end_time: 1e11 }, 'end_time'],
    ['a start of NaN-like text', { start_time: 'x' }, 'start_time'],
    ['max_entries 0', { max_entries: 0 }, 'max_entries'],
    ['max_entries 1.5', { max_entries: 1.5 }, 'max_entries'],
    ['trunc_method "middle"', { trunc_method: 'middle' }, 'trunc_method'],
    ['month 13 in a local date', { from_local_date: { year: 2016, month: 13 } }, 'from_local_date'],
    ['a valid local date (not supported)', { to_local_date: { year: 2016, month: 2 } }, 'from_local_date'],
  ])('When the body has %s, then 400 naming %s', (_name, body, field) => {
    let caught: unknown;
    try {
      parse(body);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).details['field']).toBe(field);
  });
});

describe('planFindEntries', () => {
  const query = (b: Record<string, unknown>) =>
    parse({ key_list: ['background/location', 'analysis/confirmed_trip'], ...b });

  it('When max_entries within the cap is asked with last, then only those are read, newest first', () => {
    expect(planFindEntries(query({ max_entries: 10, trunc_method: 'last' }), 100)).toEqual({
      derivedKeys: ['analysis/confirmed_trip'],
      rawKeys: ['background/location'],
      cutsWhileReading: true,
      readLimit: 10,
      newestFirst: true,
    });
  });

  it('When sample is asked, or max_entries over the cap, then the cap + 1 is read to know there are more', () => {
    for (const b of [{ max_entries: 10 }, { max_entries: 1000, trunc_method: 'first' }]) {
      expect(planFindEntries(query(b), 100)).toMatchObject({
        cutsWhileReading: false,
        readLimit: 101,
        newestFirst: false,
      });
    }
  });

  it('When key_list is null, then raw entries only', () => {
    expect(planFindEntries(parse({ key_list: null }), 100)).toMatchObject({ derivedKeys: [], rawKeys: null });
  });
});
