import Router from '@koa/router';
import { NotFoundError, ValidationError } from '../../../shared/errors/index.js';
import { isoLocal } from '../../../shared/time/index.js';
import {
  isMetricName,
  isSupportedFreq,
  type LocalFreq,
  type MetricName,
  type ModeSummary,
  summarizeByLocalDate,
  summarizeByTimestamp,
} from '../domain/metrics-summary.js';
import type { GatewayState } from '../gateway-state.js';
import type { DiaryReader } from '../store/cassandra-diary-reader.js';
import { identifyUser, type IdentifyDeps } from './identify-user.js';

export interface MetricsDeps extends IdentifyDeps {
  diary: DiaryReader;
}

interface LocalDateQuery {
  year: number;
  month?: number;
  day?: number;
}

/** A time zone wide enough to hold every local date: local dates are filtered exactly after the read. */
const WIDEST_OFFSET_S = 14 * 3600;

function parseLocalDate(value: unknown, name: string): LocalDateQuery {
  const v = value as Record<string, unknown> | null;
  const ok = (x: unknown) => x === undefined || (Number.isInteger(x) && (x as number) > 0);
  if (!v || typeof v !== 'object' || !Number.isInteger(v['year']) || !ok(v['month']) || !ok(v['day'])) {
    throw new ValidationError(`${name} must be a local date like {"year": 2015, "month": 8, "day": 27}`);
  }
  return { year: v['year'] as number, month: v['month'] as number | undefined, day: v['day'] as number | undefined };
}

const label = (d: LocalDateQuery, end: boolean) =>
  `${String(d.year).padStart(4, '0')}-${String(d.month ?? (end ? 12 : 1)).padStart(2, '0')}-${String(d.day ?? (end ? 31 : 1)).padStart(2, '0')}`;

/**
 * `/result/metrics/yyyy_mm_dd` (the current app's group-comparison cards) groups by confirmed labels, and there are
 * no labels yet: it answers the old-form object with an empty list per requested metric, which the app shows as
 * "no data". A 404 would make the app show an error every time the dashboard opens.
 */
function labelMetricsPlaceholder(metricList: unknown): Record<string, never[]> {
  const names = Array.isArray(metricList)
    ? metricList
    : metricList !== null && typeof metricList === 'object'
      ? Object.keys(metricList)
      : ['count', 'distance', 'duration'];
  const valid = names.filter((n): n is string => typeof n === 'string' && /^[a-z_]{1,40}$/.test(n));
  if (valid.length !== names.length)
    throw new ValidationError('metric_list must name metrics, e.g. {"distance": ["mode_confirm"]}');
  return Object.fromEntries(valid.map((n) => [n, []]));
}

/**
 * `/result/metrics/<timestamp|local_date>`: count, distance, duration and mean speed (median_speed is its alias)
 * per sensed mode, for the calling user and/or aggregated over all users, from the sections the trip builder keeps
 * in `section_metrics` (one partition per day, so a call reads the days asked for, never every trip).
 */
export function metricsRoutes(deps: MetricsDeps): Router<GatewayState> {
  const router = new Router<GatewayState>();
  router.post('/result/metrics/:timeType', async (ctx) => {
    const timeType = ctx.params['timeType'] ?? '';
    if (!['timestamp', 'local_date', 'yyyy_mm_dd'].includes(timeType))
      throw new NotFoundError(`no metrics by ${timeType}; use timestamp, local_date or yyyy_mm_dd`);
    const b = (ctx.request.body ?? {}) as Record<string, unknown>;
    if (timeType === 'yyyy_mm_dd') {
      if (b['user'] !== undefined) await identifyUser(ctx, deps);
      ctx.body = labelMetricsPlaceholder(b['metric_list']);
      return;
    }
    const user = b['user'] !== undefined ? await identifyUser(ctx, deps) : undefined;
    const oldStyle = b['metric_list'] === undefined || b['is_return_aggregate'] === undefined;
    const requested = b['metric_list'] !== undefined ? b['metric_list'] : [b['metric'] || 'count'];
    if (!Array.isArray(requested) || requested.some((m) => typeof m !== 'string' || !isMetricName(m))) {
      throw new ValidationError(
        'metric_list must list metrics among count, distance, duration, mean_speed, median_speed',
      );
    }
    const metrics = requested as MetricName[];
    const aggregate = b['is_return_aggregate'] === undefined ? true : b['is_return_aggregate'] === true;

    let compute: (userId: string | null) => Promise<ModeSummary[][]>;
    if (timeType === 'timestamp') {
      const start = b['start_time'];
      const end = b['end_time'];
      if (
        typeof start !== 'number' ||
        typeof end !== 'number' ||
        !Number.isFinite(start) ||
        !Number.isFinite(end) ||
        end < start
      ) {
        throw new ValidationError('start_time and end_time must be numbers (seconds since the epoch), start ≤ end');
      }
      const freq = String(b['freq'] ?? 'D');
      if (!isSupportedFreq(freq))
        throw new ValidationError(`freq ${freq} is not supported; use D (days) or M (months)`);
      compute = async (userId) => {
        const sections = await deps.diary.sections(userId, start, end);
        return metrics.map((m) => summarizeByTimestamp(sections, freq, m));
      };
    } else {
      const from = parseLocalDate(b['start_time'], 'start_time');
      const to = parseLocalDate(b['end_time'], 'end_time');
      const freq = String(b['freq'] ?? 'DAILY');
      if (!['DAILY', 'MONTHLY', 'YEARLY'].includes(freq))
        throw new ValidationError('freq must be DAILY, MONTHLY or YEARLY');
      const [fromLabel, toLabel] = [label(from, false), label(to, true)];
      compute = async (userId) => {
        const startTs = Date.parse(`${fromLabel}T00:00:00Z`) / 1000 - WIDEST_OFFSET_S;
        const endTs = Date.parse(`${toLabel.slice(0, 8)}01T00:00:00Z`) / 1000 + 32 * 86_400 + WIDEST_OFFSET_S;
        const sections = (await deps.diary.sections(userId, startTs, endTs)).filter((s) => {
          const local = (isoLocal(s.startTs, s.timeZone) ?? new Date(s.startTs * 1000).toISOString()).slice(0, 10);
          return local >= fromLabel && local <= toLabel;
        });
        return metrics.map((m) => summarizeByLocalDate(sections, freq as LocalFreq, m));
      };
    }
    const userMetrics = user ? await compute(user.uuid) : undefined;
    const aggregateMetrics = aggregate ? await compute(null) : undefined;
    const shape = (lists: ModeSummary[][]) => (oldStyle ? (lists[0] ?? []) : lists);
    ctx.body = {
      ...(userMetrics ? { user_metrics: shape(userMetrics) } : {}),
      ...(aggregateMetrics ? { aggregate_metrics: shape(aggregateMetrics) } : {}),
    };
  });
  return router;
}
