import type { LabelTripFact as StoredLabelTripFact } from '../../../shared/tables/label-trip-metrics.js';
import { passesK, rememberUser } from './metrics-summary.js';
import { addTravel, isSummedMetric, SUMMED_METRICS, type TravelSums } from './summed-metrics.js';

/**
 * `/result/metrics/yyyy_mm_dd`: the aggregate comparison over all users' confirmed trips by label, per trip-local
 * day, as e-mission-common's `metrics_summaries.generate_summaries` computes it, from the per-trip rows the trip
 * builder keeps (shared/tables/label-trip-metrics.ts) instead of from every composite trip.
 */

/**
 * One confirmed trip with its dimension values resolved: a row of the label metrics the trip builder keeps. Its
 * start time decides whether its account is old enough to count (metrics-history).
 */
export type LabelTripFact = Pick<
  StoredLabelTripFact,
  | 'userId'
  | 'localDate'
  | 'startTs'
  | 'modeConfirm'
  | 'purposeConfirm'
  | 'replacedModeConfirm'
  | 'mode'
  | 'distance'
  | 'duration'
  | 'responded'
>;

export const LABEL_METRICS = [...SUMMED_METRICS, 'response_count', 'footprint'] as const;
export type LabelMetric = (typeof LABEL_METRICS)[number];
const LABEL_METRIC_SET: ReadonlySet<string> = new Set(LABEL_METRICS);
export function isLabelMetric(name: string): name is LabelMetric {
  return LABEL_METRIC_SET.has(name);
}

/**
 * The dimensions answered. e-mission-common also knows `survey` (the survey the study's conditions prompt for,
 * which needs its `showsIf` expressions); like any dimension it does not know, it is skipped. There is no BLE
 * sensing, so `primary_ble_sensed_mode` is `UNKNOWN` for every trip, as e-mission-common answers without it.
 */
export const LABEL_DIMENSIONS = [
  'mode_confirm',
  'purpose_confirm',
  'replaced_mode_confirm',
  'mode',
  'primary_ble_sensed_mode',
] as const;
export type LabelDimension = (typeof LABEL_DIMENSIONS)[number];
const LABEL_DIMENSION_SET: ReadonlySet<string> = new Set(LABEL_DIMENSIONS);
export function isLabelDimension(name: string): name is LabelDimension {
  return LABEL_DIMENSION_SET.has(name);
}

const UNKNOWN = 'UNKNOWN';
const UNLABELED = 'UNLABELED';

function dimensionValue(fact: LabelTripFact, dimension: LabelDimension): string {
  switch (dimension) {
    case 'mode_confirm':
      return fact.modeConfirm;
    case 'purpose_confirm':
      return fact.purposeConfirm;
    case 'replaced_mode_confirm':
      return fact.replacedModeConfirm;
    case 'mode':
      return fact.mode;
    case 'primary_ble_sensed_mode':
      return UNKNOWN;
  }
}

/** The metrics asked, in request order, each with its dimensions (known ones, once each). */
export type LabelMetricList = readonly { metric: LabelMetric; dimensions: readonly LabelDimension[] }[];

/** kg CO2 per km by mode label, from `app_config.label_options` (its `MODE` options' `kgCo2PerKm`). */
export type FootprintFactors = ReadonlyMap<string, number>;

/**
 * The footprint factors a request's `app_config.label_options` gives: each `MODE` option's `kgCo2PerKm` under its
 * `value`. Undefined when it gives none: the footprint metric then answers its days (date, nUsers) without any
 * dimension value, as "no data", rather than a made-up zero.
 */
export function footprintFactors(appConfig: unknown): FootprintFactors | undefined {
  const labelOptions = (appConfig as { label_options?: unknown } | null | undefined)?.label_options;
  const modes = (labelOptions as { MODE?: unknown } | null | undefined)?.MODE;
  if (!Array.isArray(modes)) return undefined;
  const factors = new Map<string, number>();
  for (const option of modes as unknown[]) {
    if (option === null || typeof option !== 'object') continue;
    const { value, kgCo2PerKm } = option as { value?: unknown; kgCo2PerKm?: unknown };
    if (typeof value === 'string' && typeof kgCo2PerKm === 'number' && Number.isFinite(kgCo2PerKm) && kgCo2PerKm >= 0)
      factors.set(value, kgCo2PerKm);
  }
  return factors.size > 0 ? factors : undefined;
}

export interface ResponseCount {
  responded: number;
  not_responded: number;
}
export interface Footprint {
  kg_co2: number;
}
export type LabelMeasure = number | ResponseCount | Footprint;

/** The old form, the one e-mission's server answers: `{distance: [{date, nUsers, mode_confirm_bike: 1000}]}`. */
export type LabelMetricsByMetric = Record<string, Record<string, unknown>[]>;
/** The new form, e-mission-common's stored summaries: one entry per metric and day. */
export interface LabelMetricsDay {
  date: string;
  metric: LabelMetric;
  nUsers: number;
  dimensions: Record<string, { value: string; measure: LabelMeasure }[]>;
  last_updated: number;
}

interface ValueTotals extends TravelSums {
  kgCo2: number;
  /** Trips of this value with a footprint factor. */
  footprintTrips: number;
  /** Distinct users, remembered up to k. */
  users: Set<string>;
}

interface DayCell {
  users: Set<string>;
  values: Map<LabelDimension, Map<string, ValueTotals>>;
}

export interface LabelMetricsAccumulator {
  add(fact: LabelTripFact): void;
  /** The old form (an object keyed by metric). */
  byMetric(): LabelMetricsByMetric;
  /** The new form (an array of day summaries). */
  days(): LabelMetricsDay[];
}

export interface LabelMetricsOptions {
  /** k: a day, or a dimension value within a day, computed from fewer distinct users is withheld. @defaultValue 1 */
  minUsers?: number;
  footprint?: FootprintFactors;
  /** `last_updated` of the new form, epoch seconds. */
  now?: number;
}

/**
 * Sums trips into (day, dimension, value) cells as rows stream in: constant work per trip and dimension.
 *
 * The k rule is the one the other aggregate metrics apply (metrics-summary): a day with fewer than k distinct
 * users is left out altogether (its nUsers too: "one person travelled that day" is what is protected), and within
 * a day that passed, a dimension value with fewer than k distinct users is left out of every metric (otherwise the
 * one person who chose "e-bike" would be published with their distance). There are only day bins here.
 *
 * `response_count` follows e-mission-common: a trip counts as responded under a dimension value unless the value
 * is `UNLABELED` or `UNKNOWN`. `footprint` is kg CO2: each trip's km times its mode label's factor; trips whose
 * mode has no factor add nothing, and a value none of whose trips has one is left out of the footprint.
 */
export function createLabelMetricsAccumulator(
  metricList: LabelMetricList,
  options: LabelMetricsOptions = {},
): LabelMetricsAccumulator {
  const { minUsers = 1, footprint, now = Math.floor(Date.now() / 1000) } = options;
  const wanted = [...new Set(metricList.flatMap((m) => m.dimensions))];
  const days = new Map<string, DayCell>();

  function add(fact: LabelTripFact): void {
    let day = days.get(fact.localDate);
    if (!day) {
      day = { users: new Set(), values: new Map() };
      days.set(fact.localDate, day);
    }
    day.users.add(fact.userId);
    const factor = footprint?.get(fact.mode);
    for (const dimension of wanted) {
      let values = day.values.get(dimension);
      if (!values) {
        values = new Map();
        day.values.set(dimension, values);
      }
      const value = dimensionValue(fact, dimension);
      let t = values.get(value);
      if (!t) {
        t = { count: 0, distance: 0, duration: 0, kgCo2: 0, footprintTrips: 0, users: new Set() };
        values.set(value, t);
      }
      addTravel(t, fact);
      if (factor !== undefined) {
        t.kgCo2 += (fact.distance / 1000) * factor;
        t.footprintTrips += 1;
      }
      rememberUser(t.users, fact.userId, minUsers);
    }
  }

  function measure(metric: LabelMetric, value: string, t: ValueTotals): LabelMeasure | undefined {
    if (isSummedMetric(metric)) return t[metric];
    switch (metric) {
      case 'response_count':
        return value === UNLABELED || value === UNKNOWN
          ? { responded: 0, not_responded: t.count }
          : { responded: t.count, not_responded: 0 };
      case 'footprint':
        return t.footprintTrips > 0 ? { kg_co2: t.kgCo2 } : undefined;
    }
  }

  /** The days shown (k users at least), in date order. */
  function shown(): { date: string; cell: DayCell }[] {
    return [...days.entries()]
      .filter(([, cell]) => passesK(cell.users, minUsers))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([date, cell]) => ({ date, cell }));
  }

  /** Each shown value of a dimension on a day, with its measure, values in name order. */
  function valuesOf(cell: DayCell, metric: LabelMetric, dimension: LabelDimension) {
    const out: { value: string; measure: LabelMeasure }[] = [];
    const values = cell.values.get(dimension);
    if (!values) return out;
    for (const value of [...values.keys()].sort()) {
      const t = values.get(value)!;
      if (!passesK(t.users, minUsers)) continue;
      const m = measure(metric, value, t);
      if (m !== undefined) out.push({ value, measure: m });
    }
    return out;
  }

  return {
    add,
    byMetric() {
      const out: LabelMetricsByMetric = {};
      const daysShown = shown();
      for (const { metric, dimensions } of metricList) {
        out[metric] = daysShown.map(({ date, cell }) => {
          const day: Record<string, unknown> = { date, nUsers: cell.users.size };
          for (const dimension of dimensions) {
            // Values come from stored labels (custom labels included); defineProperty keeps any name an own key.
            for (const { value, measure: m } of valuesOf(cell, metric, dimension))
              Object.defineProperty(day, `${dimension}_${value}`, {
                value: m,
                enumerable: true,
                writable: true,
                configurable: true,
              });
          }
          return day;
        });
      }
      return out;
    },
    days() {
      const daysShown = shown();
      const out: LabelMetricsDay[] = [];
      for (const { metric, dimensions } of metricList) {
        for (const { date, cell } of daysShown) {
          const dims: LabelMetricsDay['dimensions'] = {};
          for (const dimension of dimensions) {
            const values = valuesOf(cell, metric, dimension);
            if (values.length > 0) dims[dimension] = values;
          }
          out.push({ date, metric, nUsers: cell.users.size, dimensions: dims, last_updated: now });
        }
      }
      return out;
    },
  };
}

/** One-shot helper over a list, for callers (and tests) that already hold the facts. */
export function summarizeLabelMetrics(
  facts: readonly LabelTripFact[],
  metricList: LabelMetricList,
  form: 'by_metric' | 'days',
  options: LabelMetricsOptions = {},
): LabelMetricsByMetric | LabelMetricsDay[] {
  const acc = createLabelMetricsAccumulator(metricList, options);
  for (const f of facts) acc.add(f);
  return form === 'by_metric' ? acc.byMetric() : acc.days();
}
