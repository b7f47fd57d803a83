import Router from '@koa/router';
import { AuthMissingError, NotFoundError, ValidationError } from '../../../shared/errors/index.js';
import { entriesTooLarge, type TimeseriesReader } from '../../../shared/timeseries/index.js';
import {
  asksStoredComposites,
  collectDerivedEntries,
  collectStoredComposites,
  compositeDaysOf,
  compositeEndRange,
  mergeByTime,
} from '../domain/derived-entries.js';
import {
  type FindEntriesQuery,
  MAX_FIND_PARTITIONS,
  parseFindEntriesQuery,
  planFindEntries,
} from '../domain/parse-find-entries-query.js';
import { bodyOf } from '../domain/request-body.js';
import { truncateEntries } from '../domain/truncate-entries.js';
import type { GatewayState } from '../gateway-state.js';
import { FindTimeType, TripDay } from '../api/diary-api.js';
import type { DiaryReader, PipelineStateReader } from '../stores.js';
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

/** Reads that the phone makes: its day's trips, pipeline progress, and its own raw data. */
export function resultRoutes(deps: ResultsDeps): Router<GatewayState> {
  const router = new Router<GatewayState>();

  router.post('/timeline/getTrips/:day', async (ctx) => {
    const day = ctx.params['day'] ?? '';
    if (!TripDay.safeParse(day).success)
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

  router.post('/datastreams/find_entries/:timeType', async (ctx) => {
    const timeType = ctx.params['timeType'] ?? '';
    if (!FindTimeType.safeParse(timeType).success)
      throw new NotFoundError(`no find_entries by ${timeType.slice(0, 40)}; use timestamp or local_date`);
    const b = bodyOf(ctx.request.body);
    if (b['user'] === undefined) throw new AuthMissingError('only a user can read his/her data');
    const user = await identifyUser(ctx, deps);
    const query = parseFindEntriesQuery(b, { nowS: Date.now() / 1000 });
    const entries = await findEntries(deps, user.uuid, query);
    ctx.type = 'application/json';
    ctx.body = `{"phone_data":[${entries.join(',')}]}`;
  });

  return router;
}

/**
 * The entries of a find_entries query, as JSON texts in time order. At most `find_entries_max` entries, and never
 * more read than that (+1, to know there are more). With `max_entries` and `first` or `last`, only the kept
 * entries are read (`last` reads newest first, which the tables' clustering allows). Without truncation, or with
 * `sample` (which needs the whole list to space its picks), an answer that would exceed the limit is a 400 naming
 * it, not a silently cut list. The answer is capped in bytes as well (`find_entries_max_mb`): entries can be up to
 * 1.5 MiB each, so a count alone would let gigabytes into memory. Reading stops as soon as the entries held pass
 * the cap: a 400 naming it.
 */
async function findEntries(deps: ResultsDeps, userId: string, query: FindEntriesQuery): Promise<string[]> {
  const { keyTime, timeKey, start, end } = query;
  const cap = deps.limits.findEntriesMax;
  const { derivedKeys, rawKeys, cutsWhileReading, readLimit, newestFirst } = planFindEntries(query, cap);
  const maxBytes = deps.limits.findEntriesMaxBytes;
  const raw =
    timeKey && start <= end && (rawKeys === null || rawKeys.length > 0)
      ? await deps.timeseries.findTimed(userId, rawKeys, timeKey, start, end, {
          limit: readLimit,
          newestFirst,
          maxPartitions: MAX_FIND_PARTITIONS,
          maxBytes,
        })
      : [];
  let found = raw.map((e) => e.json);
  if (derivedKeys.length > 0 && start <= end) {
    // One budget for the whole answer: what the raw entries left of it.
    let rawBytes = 0;
    for (const e of raw) rawBytes += Buffer.byteLength(e.json) + 1;
    const collect = {
      limit: readLimit,
      newestFirst,
      maxBytes: maxBytes - rawBytes,
      tooLarge: () => entriesTooLarge(maxBytes),
    };
    const asIs = asksStoredComposites(derivedKeys, keyTime);
    const { from, to } = asIs ? { from: start, to: end } : compositeEndRange(start, end);
    const rows = deps.diary.composites(userId, from, to, { newestFirst });
    const derived = asIs
      ? await collectStoredComposites(rows, collect)
      : await collectDerivedEntries(compositeDaysOf(rows), { keys: derivedKeys, keyTime, start, end }, collect);
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
  return cutsWhileReading ? found : truncateEntries(found, query.maxEntries, query.trunc);
}
