import Router from '@koa/router';
import { AuthMissingError, NotFoundError, ValidationError } from '../../../shared/errors/index.js';
import { MAX_PLAUSIBLE_TS, parseIsoDay, partialDateProblem, timestampProblem } from '../../../shared/time/index.js';
import { entriesTooLarge, type TimeKey, type TimeseriesReader } from '../../../shared/timeseries/index.js';
import { collectDerivedEntries, compositeDateRange, isDerivedKey, mergeByTime } from '../domain/derived-entries.js';
import { truncateEntries, type TruncMethod } from '../domain/truncate-entries.js';
import type { GatewayState } from '../gateway-state.js';
import type { DiaryReader } from '../store/cassandra-diary-reader.js';
import type { PipelineStateReader } from '../store/cassandra-pipeline-state-reader.js';
import { identifyUser, type IdentifyDeps } from './identify-user.js';

export interface ResultsLimits {
  /** Most entries one find_entries answers (`webserver.find_entries_max`). */
  findEntriesMax: number;
  /** Most bytes of entries one find_entries answers (`webserver.find_entries_max_mb`). */
  findEntriesMaxBytes: number;
}

export interface ResultsDeps extends IdentifyDeps {
  diary: DiaryReader;
  timeseries: TimeseriesReader;
  pipeline: PipelineStateReader;
  limits: ResultsLimits;
}

/**
 * How far one find_entries may reach, counted in what a range costs (days that hold data of an asked key) rather
 * than in calendar time: the phone legitimately asks "all time" (labels since 0, and `end_ts - 10` = -10 when
 * nothing is processed yet), and reads visit only days with data and stop at the result limit. 50,000 is ten
 * years of every key a phone writes; a range touching more is a 400 naming the limit.
 */
const MAX_FIND_PARTITIONS = 50_000;
/** e-mission has about forty keys; a list far longer is not a query of them. */
const MAX_KEYS = 100;
const MAX_KEY_LENGTH = 200;

const TIME_KEYS: ReadonlyMap<string, TimeKey> = new Map([
  ['metadata.write_ts', 'metadata.write_ts'],
  ['data.ts', 'data.ts'],
]);
const TRUNC_METHODS: ReadonlySet<string> = new Set(['first', 'last', 'sample']);
const FIND_TIME_TYPES: ReadonlySet<string> = new Set(['timestamp', 'local_date']);

type Body = Record<string, unknown>;

function body(ctx: { request: { body?: unknown } }): Body {
  return (ctx.request.body ?? {}) as Body;
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
function timeRange(b: Body): { start: number; end: number } {
  const end = b['end_time'] ?? Math.floor(Date.now() / 1000) + 86_400;
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

/** Reads that the phone makes: its day's trips, pipeline progress, and its own raw data. */
export function resultRoutes(deps: ResultsDeps): Router<GatewayState> {
  const router = new Router<GatewayState>();

  router.post('/timeline/getTrips/:day', async (ctx) => {
    const day = ctx.params['day'] ?? '';
    // Strict: Date.parse('2003-02-31') is 3 March, and would serve another day's trips.
    if (!parseIsoDay(day))
      throw new ValidationError(`day must be an existing date YYYY-MM-DD from 1970 on, got ${day.slice(0, 40)}`, {
        details: { field: 'day' },
      });
    const user = await identifyUser(ctx, deps);
    ctx.body = { timeline: await deps.diary.timeline(user.uuid, day) };
  });

  router.post('/pipeline/get_complete_ts', async (ctx) => {
    const user = await identifyUser(ctx, deps);
    ctx.body = { complete_ts: (await deps.pipeline.progress(user.uuid)).completeTs };
  });

  router.post('/pipeline/get_range_ts', async (ctx) => {
    const user = await identifyUser(ctx, deps);
    const progress = await deps.pipeline.progress(user.uuid);
    ctx.body = { start_ts: progress.rangeStartTs, end_ts: progress.rangeEndTs };
  });

  /**
   * At most `find_entries_max` entries, and never more read than that (+1, to know there are more). With
   * `max_entries` and `first` or `last`, only the kept entries are read (`last` reads newest first, which the
   * tables' clustering allows). Without truncation, or with `sample` (which needs the whole list to space its
   * picks), an answer that would exceed the limit is a 400 naming it, not a silently cut list.
   * The answer is capped in bytes as well (`find_entries_max_mb`): entries can be up to 1.5 MiB each, so a count
   * alone would let gigabytes into memory. Reading stops as soon as the entries held pass the cap: a 400 naming it.
   */
  router.post('/datastreams/find_entries/:timeType', async (ctx) => {
    const timeType = ctx.params['timeType'] ?? '';
    if (!FIND_TIME_TYPES.has(timeType))
      throw new NotFoundError(`no find_entries by ${timeType.slice(0, 40)}; use timestamp or local_date`);
    const b = body(ctx);
    if (b['user'] === undefined) throw new AuthMissingError('only a user can read his/her data');
    const user = await identifyUser(ctx, deps);
    const keys = keyList(b['key_list']);
    refuseLocalDateQuery(b);
    const keyTime = b['key_time'] ?? 'metadata.write_ts';
    if (typeof keyTime !== 'string' || keyTime.length > MAX_KEY_LENGTH)
      throw new ValidationError('key_time must be a field name such as metadata.write_ts', {
        details: { field: 'key_time' },
      });
    const timeKey = TIME_KEYS.get(keyTime);
    const { start, end } = timeRange(b);
    const maxEntries = b['max_entries'];
    if (
      maxEntries !== undefined &&
      maxEntries !== null &&
      !(Number.isSafeInteger(maxEntries) && (maxEntries as number) > 0)
    ) {
      throw new ValidationError('max_entries must be a positive integer', { details: { field: 'max_entries' } });
    }
    const trunc = b['trunc_method'] ?? 'sample';
    if (typeof trunc !== 'string' || !TRUNC_METHODS.has(trunc))
      throw new ValidationError('trunc_method must be first, last or sample', { details: { field: 'trunc_method' } });

    const cap = deps.limits.findEntriesMax;
    const wanted = (maxEntries as number | null | undefined) ?? undefined;
    const cutsWhileReading = wanted !== undefined && wanted <= cap && (trunc === 'first' || trunc === 'last');
    const readLimit = cutsWhileReading ? wanted : cap + 1;
    const newestFirst = cutsWhileReading && trunc === 'last';

    // Analysis keys (composite trips and what they hold) come from the trip builder's output; the rest, or every
    // key when key_list is null, from the raw timeseries, which is indexed on write_ts and data.ts only.
    const derivedKeys = keys?.filter(isDerivedKey) ?? [];
    const rawKeys = keys === null ? null : keys.filter((k) => !isDerivedKey(k));
    const maxBytes = deps.limits.findEntriesMaxBytes;
    const raw =
      timeKey && start <= end && (rawKeys === null || rawKeys.length > 0)
        ? await deps.timeseries.findTimed(user.uuid, rawKeys, timeKey, start, end, {
            limit: readLimit,
            newestFirst,
            maxPartitions: MAX_FIND_PARTITIONS,
            maxBytes,
          })
        : [];
    let found = raw.map((e) => e.json);
    if (derivedKeys.length > 0 && start <= end) {
      const { from, to } = compositeDateRange(start, end);
      // One budget for the whole answer: what the raw entries left of it.
      let rawBytes = 0;
      for (const e of raw) rawBytes += Buffer.byteLength(e.json) + 1;
      const derived = await collectDerivedEntries(
        deps.diary.compositeDays(user.uuid, from, to, { newestFirst }),
        { keys: derivedKeys, keyTime, start, end },
        { limit: readLimit, newestFirst, maxBytes: maxBytes - rawBytes, tooLarge: () => entriesTooLarge(maxBytes) },
      );
      found = mergeByTime(raw, derived);
      if (found.length > readLimit)
        found = newestFirst ? found.slice(found.length - readLimit) : found.slice(0, readLimit);
    }
    if (!cutsWhileReading && found.length > cap) {
      throw new ValidationError(
        `more than ${cap} entries match, the most one call returns; ask a shorter range, or max_entries of at most ${cap} with trunc_method first or last`,
        { details: { limit: cap } },
      );
    }
    const kept = cutsWhileReading ? found : truncateEntries(found, wanted, trunc as TruncMethod);
    ctx.type = 'application/json';
    ctx.body = `{"phone_data":[${kept.join(',')}]}`;
  });

  return router;
}
