import { ValidationError } from '../../../shared/errors/index.js';
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
  footprintFactors,
  type FootprintFactors,
  isLabelDimension,
  isLabelMetric,
  LABEL_METRICS,
  type LabelDimension,
  type LabelMetricList,
} from './label-metrics.js';
import {
  type Binning,
  isMetricName,
  localLabel,
  type LocalFreq,
  METRICS,
  type MetricName,
  type SectionFact,
  timestampFreq,
  wholeTimestampBins,
} from './metrics-summary.js';
import type { Body } from './request-body.js';

/**
 * The bodies of `/result/metrics/<timestamp|local_date|yyyy_mm_dd>` as typed queries; anything malformed or over a
 * bound is a ValidationError naming the field.
 */

/** Longest range of one metrics call, in days: two years, leap day included. Each day is a partition to read. */
export const MAX_METRICS_RANGE_DAYS = 731;
const DAY_S = 86_400;

/** A time zone wide enough to hold every local date: local dates are filtered exactly after the read. */
const WIDEST_OFFSET_S = 14 * 3600;

/** The metrics `/result/metrics/yyyy_mm_dd` names in `metric_list` (e-mission-common's metrics_summaries). */
const LABEL_METRIC_NAMES: ReadonlySet<string> = new Set(LABEL_METRICS);
const SECTION_METRICS: ReadonlySet<string> = new Set(METRICS);
const LOCAL_FREQS: ReadonlySet<string> = new Set(['DAILY', 'MONTHLY', 'YEARLY']);

/** Who a metrics call is for, read from its `aggregate`, `is_return_aggregate` and `user` fields. */
export interface MetricsCall {
  /**
   * e-mission's rule (`_fill_aggregate_backward_compat`): without an `aggregate` field, a call without a user is an
   * aggregate call and a call with one is the user's own.
   */
  aggregateCall: boolean;
  /** `is_return_aggregate` as sent: a user's own call may ask for the aggregate alongside. */
  returnAggregate: boolean | undefined;
}

export function parseMetricsCall(b: Body): MetricsCall {
  const aggregate = b['aggregate'];
  if (aggregate !== undefined && typeof aggregate !== 'boolean')
    throw new ValidationError('aggregate must be true or false', { details: { field: 'aggregate' } });
  const returnAggregate = b['is_return_aggregate'];
  if (returnAggregate !== undefined && typeof returnAggregate !== 'boolean')
    throw new ValidationError('is_return_aggregate must be true or false', {
      details: { field: 'is_return_aggregate' },
    });
  return { aggregateCall: aggregate ?? b['user'] === undefined, returnAggregate };
}

/** A `/result/metrics/<timestamp|local_date>` call: which metrics, over which sections, in which bins. */
export interface SectionMetricsQuery {
  metrics: MetricName[];
  /** The old answer form (one list, not one per metric): no `metric_list`, or no `is_return_aggregate`. */
  oldStyle: boolean;
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

export function parseSectionMetricsQuery(timeType: 'timestamp' | 'local_date', b: Body): SectionMetricsQuery {
  const metrics = requestedMetrics(b);
  const oldStyle = b['metric_list'] === undefined || b['is_return_aggregate'] === undefined;
  const range = timeType === 'timestamp' ? timestampRange(b) : localDateRange(b);
  return { metrics, oldStyle, ...range };
}

/** How a `/result/metrics/yyyy_mm_dd` call is answered. */
export interface LabelMetricsQuery {
  metricList: LabelMetricList;
  /**
   * `by_metric` (the old form, `{distance: [{date, nUsers, mode_confirm_bike: …}]}`) for a `metric_list` object,
   * which is what the app sends and what e-mission's server answers it; `days` (the new form, e-mission-common's
   * summaries `[{date, metric, nUsers, dimensions}]`) for a `metric_list` list, the other shape e-mission-common's
   * `generate_summaries` takes (`dict(metric_list)` of `[metric, dimensions]` pairs).
   */
  form: 'by_metric' | 'days';
  localDates: string[];
  /** kg CO2 per km by label, from `app_config.label_options`; without it, no footprint. */
  footprint: FootprintFactors | undefined;
}

/** The app's default `metric_list` (e-mission-phone `MetricsTab.tsx` `DEFAULT_METRIC_LIST`). */
const DEFAULT_LABEL_METRIC_LIST: Body = {
  distance: ['mode_confirm'],
  duration: ['mode_confirm'],
  count: ['mode_confirm'],
};

export function parseLabelMetricsQuery(b: Body): LabelMetricsQuery {
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
  return { metricList, form, localDates: isoDayRange(b), footprint: footprintFactors(b['app_config']) };
}

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

function requestedMetrics(b: Body): MetricName[] {
  const list = b['metric_list'];
  if (list !== undefined && !Array.isArray(list))
    throw new ValidationError('metric_list must be a list of metric names');
  const names =
    list !== undefined
      ? metricNames(list as unknown[], SECTION_METRICS, 'metric_list')
      : // The specification's form names one `metric`, "a string, may be empty": empty is absent, the count.
        metricNames(
          [b['metric'] === undefined || b['metric'] === '' ? 'count' : b['metric']],
          SECTION_METRICS,
          'metric',
        );
  return names.filter(isMetricName);
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

function rangeTooLong(): ValidationError {
  const message = `start_time to end_time spans more than ${MAX_METRICS_RANGE_DAYS} days; ask at most two years per call`;
  return new ValidationError(message, { details: { field: 'end_time', limit_days: MAX_METRICS_RANGE_DAYS } });
}

/** Day numbers from `first` to `last`, checked: in order, and within MAX_METRICS_RANGE_DAYS. */
function checkSpan(first: number, last: number): void {
  if (last < first) throw new ValidationError('end_time is before start_time', { details: { field: 'end_time' } });
  if (last - first >= MAX_METRICS_RANGE_DAYS) throw rangeTooLong();
}

/** `start_time` and `end_time` as days `YYYY-MM-DD` (yyyy_mm_dd): every day of the range, as a trip-local date. */
function isoDayRange(b: Body): string[] {
  const days: CalendarDay[] = [];
  for (const field of ['start_time', 'end_time']) {
    const value = b[field];
    const day = typeof value === 'string' ? parseIsoDay(value) : undefined;
    if (!day) throw new ValidationError(`${field} must be an existing day YYYY-MM-DD`, { details: { field } });
    days.push(day);
  }
  const [first, last] = [dayNumber(days[0]!), dayNumber(days[1]!)];
  checkSpan(first, last);
  const localDates: string[] = [];
  for (let n = first; n <= last; n++) localDates.push(new Date(n * DAY_S * 1000).toISOString().slice(0, 10));
  return localDates;
}

type MetricsRange = Pick<SectionMetricsQuery, 'binning' | 'startTs' | 'endTs' | 'aggregateRange' | 'keep'>;

function timestampRange(b: Body): MetricsRange {
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
  checkSpan(Math.floor(startTs / DAY_S), Math.floor(endTs / DAY_S));
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

/** A local date `{year, month?, day?}`: a partial date stands for its whole month or year. */
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
  // Its first day starts a range, its last day ends one.
  return {
    from: { year, month: month ?? 1, day: day ?? 1 },
    to: { year, month: month ?? 12, day: day ?? daysInMonth(year, month ?? 12) },
  };
}

function localDateRange(b: Body): MetricsRange {
  const { from } = parseLocalDate(b['start_time'], 'start_time');
  const { to } = parseLocalDate(b['end_time'], 'end_time');
  checkSpan(dayNumber(from), dayNumber(to));
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
