import Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import type { AggregateCallAuth } from '../../../shared/config/index.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../../shared/errors/index.js';
import {
  type CalendarDay,
  dayNumber,
  daysInMonth,
  isoDay,
  parseIsoDay,
  partialDateProblem,
  timestampProblem,
} from '../../../shared/time/index.js';
import {
  createLabelMetricsAccumulator,
  footprintFactors,
  isLabelDimension,
  isLabelMetric,
  LABEL_METRICS,
  type LabelDimension,
  type LabelMetricList,
} from '../domain/label-metrics.js';
import {
  type Binning,
  createMetricsAccumulator,
  isMetricName,
  localLabel,
  METRICS,
  type LocalFreq,
  type MetricName,
  type ModeSummary,
  type SectionFact,
  timestampFreq,
  wholeTimestampBins,
} from '../domain/metrics-summary.js';
import type { GatewayState } from '../gateway-state.js';
import type { DiaryReader } from '../store/cassandra-diary-reader.js';
import type { User } from '../store/cassandra-user-store.js';
import { identifyUser, type IdentifyDeps } from './identify-user.js';

export interface MetricsLimits {
  /** Who may ask for aggregates over all users (e-mission's `aggregate_call_auth`). */
  aggregateCallAuth: AggregateCallAuth;
  /** k: an aggregate value computed from fewer distinct users is withheld. */
  aggregateMinUsers: number;
  /** Section rows one scan (the user's, or the aggregate) may read. */
  metricsMaxSections: number;
}

export interface MetricsDeps extends IdentifyDeps {
  diary: DiaryReader;
  limits: MetricsLimits;
}

/** Longest range of one metrics call, in days: two years, leap day included. Each day is a partition to read. */
export const MAX_METRICS_RANGE_DAYS = 731;
const DAY_S = 86_400;

/** A time zone wide enough to hold every local date: local dates are filtered exactly after the read. */
const WIDEST_OFFSET_S = 14 * 3600;

/** The metrics `/result/metrics/yyyy_mm_dd` names in `metric_list` (e-mission-common's metrics_summaries). */
const LABEL_METRIC_NAMES: ReadonlySet<string> = new Set(LABEL_METRICS);
const LOCAL_FREQS: ReadonlySet<string> = new Set(['DAILY', 'MONTHLY', 'YEARLY']);

type Body = Record<string, unknown>;

/** Distinct names in request order; every one must be in `known` (a Set: "constructor" is not a metric). */
function metricNames(names: readonly unknown[], known: ReadonlySet<string>, field: string): string[] {
  const seen = new Set<string>();
  for (const n of names) {
    if (typeof n !== 'string' || !known.has(n)) {
      const shown = typeof n === 'string' ? JSON.stringify(n.slice(0, 40)) : `a ${typeof n}`;
      throw new ValidationError(`${field} names unknown metric ${shown}; use ${[...known].join(', ')}`, {
        details: { field },
      });
    }
    seen.add(n);
  }
  return [...seen];
}

const SECTION_METRICS: ReadonlySet<string> = new Set(METRICS);

function requestedMetrics(b: Body): MetricName[] {
  const list = b['metric_list'];
  if (list !== undefined && !Array.isArray(list))
    throw new ValidationError('metric_list must be a list of metric names');
  const names =
    list !== undefined
      ? metricNames(list as unknown[], SECTION_METRICS, 'metric_list')
      : metricNames([b['metric'] ?? 'count'], SECTION_METRICS, 'metric');
  return names.filter(isMetricName);
}

function parseLocalDate(value: unknown, name: string): { from: CalendarDay; to: CalendarDay } {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ValidationError(`${name} must be a local date like {"year": 2015, "month": 8, "day": 27}`);
  const v = value as Body;
  const fields = { year: v['year'], month: v['month'], day: v['day'] };
  const problem = partialDateProblem(fields, name);
  if (problem) throw new ValidationError(problem, { details: { field: name } });
  const year = fields.year as number;
  const month = fields.month as number | undefined;
  const day = fields.day as number | undefined;
  // A partial date stands for its whole month or year: its first day starts a range, its last day ends one.
  return {
    from: { year, month: month ?? 1, day: day ?? 1 },
    to: { year, month: month ?? 12, day: day ?? daysInMonth(year, month ?? 12) },
  };
}

function rangeTooLong(field: string): ValidationError {
  const message = `start_time to end_time spans more than ${MAX_METRICS_RANGE_DAYS} days; ask at most two years per call`;
  return new ValidationError(message, { details: { field, limit_days: MAX_METRICS_RANGE_DAYS } });
}

/**
 * e-mission's `get_user_or_aggregate_auth`: an aggregate call is checked against `aggregate_call_auth`.
 * `no_auth` lets anyone in; `user_only` wants the token of a registered user (403, as e-mission); `never` answers
 * 404 "not supported", as e-mission does, and not 403: the phone app takes a 403 for "unknown user" and would
 * send its user back to registration.
 */
async function authorizeAggregate(
  ctx: ParameterizedContext<GatewayState>,
  deps: MetricsDeps,
  b: Body,
): Promise<User | undefined> {
  switch (deps.limits.aggregateCallAuth) {
    case 'no_auth':
      return b['user'] !== undefined ? identifyUser(ctx, deps) : undefined;
    case 'user_only':
      if (b['user'] === undefined || b['user'] === null || b['user'] === '')
        throw new ForbiddenError('aggregations only available to users: send your token as "user"');
      return identifyUser(ctx, deps);
    case 'never':
      throw new NotFoundError('aggregate calls are not supported on this server');
  }
}

/** The app's default `metric_list` (e-mission-phone `MetricsTab.tsx` `DEFAULT_METRIC_LIST`). */
const DEFAULT_LABEL_METRIC_LIST: Body = {
  distance: ['mode_confirm'],
  duration: ['mode_confirm'],
  count: ['mode_confirm'],
};

/** How a `/result/metrics/yyyy_mm_dd` call is answered. */
interface LabelMetricsQuery {
  metricList: LabelMetricList;
  /**
   * `by_metric` (the old form, `{distance: [{date, nUsers, mode_confirm_bike: …}]}`) for a `metric_list` object,
   * which is what the app sends and what e-mission's server answers it; `days` (the new form, e-mission-common's
   * summaries `[{date, metric, nUsers, dimensions}]`) for a `metric_list` list, the other shape e-mission-common's
   * `generate_summaries` takes (`dict(metric_list)` of `[metric, dimensions]` pairs).
   */
  form: 'by_metric' | 'days';
  localDates: string[];
}

/** A metric's dimensions: a list of names; names e-mission-common does not know are skipped, as it skips them. */
function labelDimensions(value: unknown, metric: string): LabelDimension[] {
  if (!Array.isArray(value))
    throw new ValidationError(`metric_list.${metric} must be a list of dimensions, e.g. ["mode_confirm"]`, {
      details: { field: 'metric_list' },
    });
  const out = new Set<LabelDimension>();
  for (const d of value as unknown[]) {
    if (typeof d !== 'string')
      throw new ValidationError(`metric_list.${metric} must name dimensions as strings`, {
        details: { field: 'metric_list' },
      });
    if (isLabelDimension(d)) out.add(d);
  }
  return [...out];
}

function labelMetricsQuery(b: Body): LabelMetricsQuery {
  const list = b['metric_list'] ?? DEFAULT_LABEL_METRIC_LIST;
  const pairs: [unknown, unknown][] = [];
  let form: LabelMetricsQuery['form'];
  if (Array.isArray(list)) {
    form = 'days';
    for (const item of list as unknown[]) {
      // A metric's name alone stands for the app's default dimension.
      if (Array.isArray(item) && item.length === 2) pairs.push([item[0], item[1]]);
      else pairs.push([item, ['mode_confirm']]);
    }
  } else if (list !== null && typeof list === 'object') {
    form = 'by_metric';
    for (const [name, dims] of Object.entries(list as Body)) pairs.push([name, dims]);
  } else {
    throw new ValidationError('metric_list must name metrics, e.g. {"distance": ["mode_confirm"]}', {
      details: { field: 'metric_list' },
    });
  }
  const names = metricNames(
    pairs.map(([n]) => n),
    LABEL_METRIC_NAMES,
    'metric_list',
  );
  const metricList: LabelMetricList = names.filter(isLabelMetric).map((metric) => ({
    metric,
    dimensions: labelDimensions(pairs.find(([n]) => n === metric)?.[1], metric),
  }));

  const days: CalendarDay[] = [];
  for (const field of ['start_time', 'end_time']) {
    const value = b[field];
    const day = typeof value === 'string' ? parseIsoDay(value) : undefined;
    if (!day) throw new ValidationError(`${field} must be an existing day YYYY-MM-DD`, { details: { field } });
    days.push(day);
  }
  const [first, last] = [dayNumber(days[0]!), dayNumber(days[1]!)];
  if (last < first) throw new ValidationError('end_time is before start_time', { details: { field: 'end_time' } });
  if (last - first >= MAX_METRICS_RANGE_DAYS) throw rangeTooLong('end_time');
  const localDates: string[] = [];
  for (let n = first; n <= last; n++) localDates.push(new Date(n * DAY_S * 1000).toISOString().slice(0, 10));
  return { metricList, form, localDates };
}

interface MetricsQuery {
  binning: Binning;
  startTs: number;
  endTs: number;
  /**
   * The range an aggregate is computed over: the asked one widened to whole bins (timestamp bins), so that no two
   * answers differ by part of a bin. Local-date bins are whole local days already (see `keep`), and month and
   * year bins are built from whole days that passed k (metrics-summary), so they need no widening.
   */
  aggregateRange?: { startTs: number; endTs: number };
  /** Keeps only the sections of the asked local dates (the read covers the widest zones around them). */
  keep?: (s: SectionFact) => boolean;
}

function timestampQuery(b: Body): MetricsQuery {
  const start = b['start_time'];
  const end = b['end_time'];
  for (const [field, value] of [
    ['start_time', start],
    ['end_time', end],
  ] as const) {
    const problem = timestampProblem(value, field);
    if (problem) throw new ValidationError(problem, { details: { field } });
  }
  const [startTs, endTs] = [start as number, end as number];
  if (endTs < startTs) throw new ValidationError('end_time is before start_time', { details: { field: 'end_time' } });
  if (Math.floor(endTs / DAY_S) - Math.floor(startTs / DAY_S) >= MAX_METRICS_RANGE_DAYS) throw rangeTooLong('end_time');
  const freqName = b['freq'] ?? 'D';
  const freq = typeof freqName === 'string' ? timestampFreq(freqName) : undefined;
  if (!freq) throw new ValidationError('freq must be D (days) or M (months)', { details: { field: 'freq' } });
  // The cap above is on the asked range: widening to whole months reads at most two partial months more.
  return {
    binning: { by: 'timestamp', freq },
    startTs,
    endTs,
    aggregateRange: wholeTimestampBins(freq, startTs, endTs),
  };
}

function localDateQuery(b: Body): MetricsQuery {
  const { from } = parseLocalDate(b['start_time'], 'start_time');
  const { to } = parseLocalDate(b['end_time'], 'end_time');
  const span = dayNumber(to) - dayNumber(from);
  if (span < 0) throw new ValidationError('end_time is before start_time', { details: { field: 'end_time' } });
  if (span >= MAX_METRICS_RANGE_DAYS) throw rangeTooLong('end_time');
  const freq = b['freq'] ?? 'DAILY';
  if (typeof freq !== 'string' || !LOCAL_FREQS.has(freq))
    throw new ValidationError('freq must be DAILY, MONTHLY or YEARLY', { details: { field: 'freq' } });
  const [fromLabel, toLabel] = [isoDay(from), isoDay(to)];
  return {
    binning: { by: 'local_date', freq: freq as LocalFreq },
    startTs: dayNumber(from) * DAY_S - WIDEST_OFFSET_S,
    endTs: (dayNumber(to) + 1) * DAY_S + WIDEST_OFFSET_S,
    keep: (s) => {
      const local = localLabel(s, 'DAILY');
      return local >= fromLabel && local <= toLabel;
    },
  };
}

/**
 * `/result/metrics/<timestamp|local_date>`: count, distance, duration and mean speed (median_speed is its alias)
 * per sensed mode, for the calling user and/or aggregated over all users, from the sections the trip builder keeps
 * in `section_metrics` (one partition per day, so a call reads the days asked for, never every trip). Sections are
 * summed as they stream in; a call is bounded in days, in rows read, and in partitions read at once.
 *
 * `/result/metrics/yyyy_mm_dd` (the current app's group cards): the aggregate over all users' confirmed trips by
 * label and trip-local day, from the per-trip rows the trip builder keeps in `label_trip_metrics` (one partition
 * per day, same bounds), in the answer form the request's `metric_list` shape asks for (domain/label-metrics).
 */
export function metricsRoutes(deps: MetricsDeps): Router<GatewayState> {
  const router = new Router<GatewayState>();
  router.post('/result/metrics/:timeType', async (ctx) => {
    const timeType = ctx.params['timeType'] ?? '';
    if (!['timestamp', 'local_date', 'yyyy_mm_dd'].includes(timeType))
      throw new NotFoundError(`no metrics by ${timeType.slice(0, 40)}; use timestamp, local_date or yyyy_mm_dd`);
    const b = (ctx.request.body ?? {}) as Body;
    const aggregateFlag = b['aggregate'];
    if (aggregateFlag !== undefined && typeof aggregateFlag !== 'boolean')
      throw new ValidationError('aggregate must be true or false', { details: { field: 'aggregate' } });
    const returnAggregate = b['is_return_aggregate'];
    if (returnAggregate !== undefined && typeof returnAggregate !== 'boolean')
      throw new ValidationError('is_return_aggregate must be true or false', {
        details: { field: 'is_return_aggregate' },
      });

    // e-mission's rule (`_fill_aggregate_backward_compat`): without an `aggregate` field, a call without a user
    // is an aggregate call and a call with one is the user's own.
    const aggregateCall = aggregateFlag ?? b['user'] === undefined;

    if (timeType === 'yyyy_mm_dd') {
      // The answer is the aggregate over all users whoever asks (e-mission's server never uses the user here), so
      // it is always an aggregate call: `aggregate_call_auth` decides, with or without `aggregate: true`, and
      // first, as e-mission does: where aggregates are off the route does not exist, whatever the body says.
      await authorizeAggregate(ctx, deps, b);
      const query = labelMetricsQuery(b);
      const acc = createLabelMetricsAccumulator(query.metricList, {
        minUsers: deps.limits.aggregateMinUsers,
        footprint: footprintFactors(b['app_config']),
      });
      await deps.diary.scanLabelTrips(query.localDates, (t) => acc.add(t), {
        maxSections: deps.limits.metricsMaxSections,
      });
      ctx.body = query.form === 'by_metric' ? acc.byMetric() : acc.days();
      return;
    }

    const metrics = requestedMetrics(b);
    const oldStyle = b['metric_list'] === undefined || returnAggregate === undefined;
    const query = timeType === 'timestamp' ? timestampQuery(b) : localDateQuery(b);
    // Validation first, then who may see what: a malformed call is a 400 whoever sends it.
    const user = aggregateCall ? await authorizeAggregate(ctx, deps, b) : await identifyUser(ctx, deps);
    // A user's own call may ask for the aggregate alongside (the classic app does). Where aggregates are off,
    // it gets its own metrics without them (e-mission would leak them here); the app shows "Unknown" for the
    // comparison, as it does whenever the aggregate fails.
    const aggregate = returnAggregate !== false && (aggregateCall || deps.limits.aggregateCallAuth !== 'never');

    const compute = async (userId: string | null, minUsers: number): Promise<ModeSummary[][]> => {
      // A user's own metrics cover exactly the asked range; an aggregate covers whole bins, every one of them.
      const range = userId === null ? (query.aggregateRange ?? query) : query;
      const acc = createMetricsAccumulator(query.binning, {
        minUsers,
        ...(userId === null && query.aggregateRange ? { span: query.aggregateRange } : {}),
      });
      const keep = query.keep;
      await deps.diary.scanSections(
        userId,
        range.startTs,
        range.endTs,
        (s) => {
          if (!keep || keep(s)) acc.add(s);
        },
        { maxSections: deps.limits.metricsMaxSections },
      );
      return metrics.map((m) => acc.summaries(m));
    };
    const userMetrics = user ? await compute(user.uuid, 1) : undefined;
    const aggregateMetrics = aggregate ? await compute(null, deps.limits.aggregateMinUsers) : undefined;
    const shape = (lists: ModeSummary[][]) => (oldStyle ? (lists[0] ?? []) : lists);
    ctx.body = {
      ...(userMetrics ? { user_metrics: shape(userMetrics) } : {}),
      ...(aggregateMetrics ? { aggregate_metrics: shape(aggregateMetrics) } : {}),
    };
  });
  return router;
}
