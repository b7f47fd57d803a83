import { ValidationError } from '../../../shared/errors/index.js';
import { MAX_PLAUSIBLE_TS, partialDateProblem, timestampProblem } from '../../../shared/time/index.js';
import type { TimeKey } from '../../../shared/timeseries/index.js';
import { isDerivedKey } from './derived-entries.js';
import type { Body } from './request-body.js';
import type { TruncMethod } from './truncate-entries.js';

/**
 * How far one find_entries may reach, counted in what a range costs (days that hold data of an asked key) rather
 * than in calendar time: the phone legitimately asks "all time" (labels since 0, and `end_ts - 10` = -10 when
 * nothing is processed yet), and reads visit only days with data and stop at the result limit. 50,000 is ten
 * years of every key a phone writes; a range touching more is a 400 naming the limit.
 */
export const MAX_FIND_PARTITIONS = 50_000;
/** e-mission has about forty keys; a list far longer is not a query of them. */
const MAX_KEYS = 100;
const MAX_KEY_LENGTH = 200;

const TIME_KEYS: ReadonlyMap<string, TimeKey> = new Map([
  ['metadata.write_ts', 'metadata.write_ts'],
  ['data.ts', 'data.ts'],
]);
const TRUNC_METHODS: ReadonlySet<string> = new Set(['first', 'last', 'sample']);

/** A `/datastreams/find_entries` body as a typed query. */
export interface FindEntriesQuery {
  /** The keys asked, each once; null for every key (raw entries only, as e-mission). */
  keys: string[] | null;
  /** The time field the range applies to, as sent (`metadata.write_ts`, `data.ts`, `data.end_ts`, …). */
  keyTime: string;
  /** The raw timeseries' index for `keyTime`; undefined for a field it is not indexed on (no raw entry matches). */
  timeKey: TimeKey | undefined;
  /** The range, in seconds: `start` 0 at the earliest, `start` > `end` matches nothing. */
  start: number;
  end: number;
  maxEntries: number | undefined;
  trunc: TruncMethod;
}

/** `nowS`: the time the call is made, in seconds; a missing `end_time` means a day after it. */
export function parseFindEntriesQuery(b: Body, { nowS }: { nowS: number }): FindEntriesQuery {
  const keys = keyList(b['key_list']);
  refuseLocalDateQuery(b);
  const keyTime = b['key_time'] ?? 'metadata.write_ts';
  if (typeof keyTime !== 'string' || keyTime.length > MAX_KEY_LENGTH)
    throw new ValidationError('key_time must be a field name such as metadata.write_ts', {
      details: { field: 'key_time' },
    });
  const { start, end } = timeRange(b, Math.floor(nowS) + 86_400);
  const maxEntries = b['max_entries'];
  if (maxEntries !== undefined && maxEntries !== null && !(Number.isSafeInteger(maxEntries) && Number(maxEntries) > 0))
    throw new ValidationError('max_entries must be a positive integer', { details: { field: 'max_entries' } });
  const trunc = b['trunc_method'] ?? 'sample';
  if (typeof trunc !== 'string' || !TRUNC_METHODS.has(trunc))
    throw new ValidationError('trunc_method must be first, last or sample', { details: { field: 'trunc_method' } });
  return {
    keys,
    keyTime,
    timeKey: TIME_KEYS.get(keyTime),
    start,
    end,
    maxEntries: (maxEntries as number | null | undefined) ?? undefined,
    trunc: trunc as TruncMethod,
  };
}

/** How a find_entries query is read, given the most entries one call answers (`find_entries_max`). */
export interface FindEntriesPlan {
  /** Analysis keys, served from the trip builder's composite days. */
  derivedKeys: string[];
  /** Keys read from the raw timeseries; null for all of them. */
  rawKeys: string[] | null;
  /** True when only the kept entries are read: `max_entries` within the cap, with `first` or `last`. */
  cutsWhileReading: boolean;
  /** Entries read at most: the kept ones, or the cap + 1 (to know there are more). */
  readLimit: number;
  /** `last`: read newest first, and keep the newest. */
  newestFirst: boolean;
}

export function planFindEntries(query: FindEntriesQuery, cap: number): FindEntriesPlan {
  const wanted = query.maxEntries;
  const cutsWhileReading = wanted !== undefined && wanted <= cap && (query.trunc === 'first' || query.trunc === 'last');
  return {
    // Analysis keys (composite trips and what they hold) come from the trip builder's output; the rest, or every
    // key when key_list is null, from the raw timeseries, which is indexed on write_ts and data.ts only.
    derivedKeys: query.keys?.filter(isDerivedKey) ?? [],
    rawKeys: query.keys === null ? null : query.keys.filter((k) => !isDerivedKey(k)),
    cutsWhileReading,
    readLimit: cutsWhileReading ? wanted : cap + 1,
    newestFirst: cutsWhileReading && query.trunc === 'last',
  };
}

function keyList(value: unknown): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || !value.every((k) => typeof k === 'string'))
    throw new ValidationError('key_list must be a list of key strings, or null for all keys', {
      details: { field: 'key_list' },
    });
  const keys = [...new Set(value as string[])];
  if (keys.length > MAX_KEYS || keys.some((k) => k.length > MAX_KEY_LENGTH))
    throw new ValidationError(`key_list may name at most ${MAX_KEYS} keys of at most ${MAX_KEY_LENGTH} characters`, {
      details: { field: 'key_list', limit: MAX_KEYS },
    });
  return keys;
}

/**
 * The query's time range. end_time must be a timestamp in 0..1e10. start_time may be negative, which means "from
 * the beginning": the current app sends `pipeline end_ts - 10` = -10 before anything is processed, and nothing
 * is stored before 0.
 */
function timeRange(b: Body, defaultEnd: number): { start: number; end: number } {
  const end = b['end_time'] ?? defaultEnd;
  const endProblem = timestampProblem(end, 'end_time');
  if (endProblem) throw new ValidationError(endProblem, { details: { field: 'end_time' } });
  const start = b['start_time'] ?? 0;
  if (typeof start !== 'number' || !Number.isFinite(start) || start >= MAX_PLAUSIBLE_TS) {
    throw new ValidationError(timestampProblem(start, 'start_time') ?? 'start_time is out of range', {
      details: { field: 'start_time' },
    });
  }
  return { start: Math.max(0, start), end: end as number };
}

/**
 * e-mission's local-date queries (`from_local_date`/`to_local_date`) match calendar fields, which the stored
 * timeseries cannot answer; the current app no longer sends them. Their dates are checked (so a month 13 is
 * named as such) and the query is refused rather than answered as if it were a timestamp range.
 */
function refuseLocalDateQuery(b: Body): void {
  for (const field of ['from_local_date', 'to_local_date']) {
    const value = b[field];
    if (value === undefined) continue;
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw new ValidationError(`${field} must be a local date like {"year": 2015, "month": 8}`, {
        details: { field },
      });
    const v = value as Body;
    const problem = partialDateProblem({ year: v['year'], month: v['month'], day: v['day'] }, field);
    if (problem) throw new ValidationError(problem, { details: { field } });
  }
  if (b['from_local_date'] !== undefined || b['to_local_date'] !== undefined)
    throw new ValidationError('find_entries by local date is not supported; send start_time and end_time', {
      details: { field: 'from_local_date' },
    });
}
