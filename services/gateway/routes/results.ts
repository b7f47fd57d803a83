import Router from '@koa/router';
import { AuthMissingError, ValidationError } from '../../../shared/errors/index.js';
import type { TimeKey, TimeseriesReader } from '../../../shared/timeseries/index.js';
import { compositeDateRange, isDerivedKey, mergeByTime, selectDerivedEntries } from '../domain/derived-entries.js';
import { truncateEntries, type TruncMethod } from '../domain/truncate-entries.js';
import type { GatewayState } from '../gateway-state.js';
import type { DiaryReader } from '../store/cassandra-diary-reader.js';
import type { PipelineStateReader } from '../store/cassandra-pipeline-state-reader.js';
import { identifyUser, type IdentifyDeps } from './identify-user.js';

export interface ResultsDeps extends IdentifyDeps {
  diary: DiaryReader;
  timeseries: TimeseriesReader;
  pipeline: PipelineStateReader;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const TIME_KEYS: Record<string, TimeKey> = { 'metadata.write_ts': 'metadata.write_ts', 'data.ts': 'data.ts' };

function body(ctx: { request: { body?: unknown } }): Record<string, unknown> {
  return (ctx.request.body ?? {}) as Record<string, unknown>;
}

function finiteNumber(value: unknown, name: string, fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new ValidationError(`${name} must be a number (seconds since the epoch)`);
  return value;
}

/** Reads that the phone makes: its day's trips, pipeline progress, and its own raw data. */
export function resultRoutes(deps: ResultsDeps): Router<GatewayState> {
  const router = new Router<GatewayState>();

  router.post('/timeline/getTrips/:day', async (ctx) => {
    const day = ctx.params['day'] ?? '';
    if (!DAY.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`)))
      throw new ValidationError(`day must be YYYY-MM-DD, got ${day}`);
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
    const b = body(ctx);
    if (b['user'] === undefined) throw new AuthMissingError('only a user can read his/her data');
    const user = await identifyUser(ctx, deps);
    const keyList = b['key_list'];
    if (
      keyList !== undefined &&
      keyList !== null &&
      !(Array.isArray(keyList) && keyList.every((k) => typeof k === 'string'))
    ) {
      throw new ValidationError('key_list must be a list of key strings, or null for all keys');
    }
    const keyTime = String(b['key_time'] ?? 'metadata.write_ts');
    const timeKey = TIME_KEYS[keyTime];
    const start = finiteNumber(b['start_time'], 'start_time', 0);
    const end = finiteNumber(b['end_time'], 'end_time', Date.now() / 1000 + 86_400);
    const maxEntries = b['max_entries'];
    if (
      maxEntries !== undefined &&
      maxEntries !== null &&
      !(Number.isInteger(maxEntries) && (maxEntries as number) > 0)
    ) {
      throw new ValidationError('max_entries must be a positive integer');
    }
    const trunc = String(b['trunc_method'] ?? 'sample');
    if (!['first', 'last', 'sample'].includes(trunc))
      throw new ValidationError('trunc_method must be first, last or sample');
    const keys = (keyList as string[] | null) ?? null;
    // Analysis keys (composite trips and what they hold) come from the trip builder's output; the rest, or every
    // key when key_list is null, from the raw timeseries, which is indexed on write_ts and data.ts only.
    const derivedKeys = keys?.filter(isDerivedKey) ?? [];
    const rawKeys = keys === null ? null : keys.filter((k) => !isDerivedKey(k));
    const raw =
      timeKey && (rawKeys === null || rawKeys.length > 0)
        ? await deps.timeseries.find(user.uuid, rawKeys, timeKey, start, end)
        : [];
    let found = raw;
    if (derivedKeys.length > 0) {
      const { from, to } = compositeDateRange(start, end);
      const derived = selectDerivedEntries(
        await deps.diary.composites(user.uuid, from, to),
        derivedKeys,
        keyTime,
        start,
        end,
      );
      found = raw.length === 0 ? derived.map((e) => JSON.stringify(e)) : mergeByTime(raw, derived, keyTime);
    }
    const kept = truncateEntries(found, (maxEntries as number | null) ?? undefined, trunc as TruncMethod);
    ctx.type = 'application/json';
    ctx.body = `{"phone_data":[${kept.join(',')}]}`;
  });

  return router;
}
