import type { PublicDashboardSection } from '../../../shared/programs/domain/deployment-config.js';
import type { LabelMetricList, LabelMetricsDay } from './label-metrics.js';
import { weekOf } from './dashboard-weeks.js';
import { labelNames } from './label-names.js';

/**
 * A program's public dashboard data: its participants' labelled trips by week, from the day summaries of the group
 * comparisons (label-metrics), which have already applied the k rule. A week is the sum of its days' cells that
 * passed it: a day of fewer than k participants adds nothing, nor does a label fewer than k used that day. Counting
 * k over the week instead would publish what the daily comparison withholds (a week minus its shown days is the
 * hidden day's lone traveller), so a week says nothing its days do not; the price is that a small program whose
 * participants travel on different days shows little. A withheld cell is absent from the answer, never a zero.
 */

/** The day summaries a dashboard is made from. */
export const DASHBOARD_METRICS: LabelMetricList = [
  { metric: 'count', dimensions: ['mode_confirm', 'purpose_confirm'] },
  { metric: 'distance', dimensions: ['mode_confirm', 'purpose_confirm'] },
  { metric: 'response_count', dimensions: ['mode_confirm'] },
  { metric: 'footprint', dimensions: ['mode_confirm'] },
];

/** One label's figure in one week (the week named by its Monday). */
export interface WeekBin {
  week: string;
  label: string;
  value: number;
}

/** A mode's part of the labelled trips of the whole period. */
export interface ModeShare {
  label: string;
  trips: number;
  share: number;
}

/** How many of a week's trips were given a mode label. */
export interface LabelledWeek {
  week: string;
  labelled: number;
  unlabelled: number;
  share: number;
}

export interface PublicAggregates {
  program: string;
  /** The program's name for people (its deployment name). */
  name: string;
  /** The fewest participants a figure is made from. */
  k: number;
  /** The Mondays of the weeks shown, oldest first, whether or not any figure falls in them. */
  weeks: string[];
  first_date: string;
  last_date: string;
  generated_at: string;
  sections: PublicDashboardSection[];
  /** The name of every label the figures below use, and only of those. */
  labels: { value: string; name: string }[];
  trips?: { by_mode: WeekBin[]; by_purpose: WeekBin[] };
  distance_km?: { by_mode: WeekBin[]; by_purpose: WeekBin[] };
  mode_share?: ModeShare[];
  labelled_share?: LabelledWeek[];
  /** null: the program's label options give no mode a `kgCo2PerKm`, so there is no footprint to show. */
  footprint_kg_co2?: { by_mode: WeekBin[] } | null;
}

export interface DashboardContext {
  program: string;
  name: string;
  k: number;
  weeks: readonly string[];
  endDate: string;
  sections: readonly PublicDashboardSection[];
  /** The program's `label_options`, for the labels' names. */
  labelOptions: unknown;
  /** Whether the label options give footprint factors. */
  hasFootprint: boolean;
  generatedAt: string;
}

const UNLABELED = 'UNLABELED';

/** Sums by week, then label. */
type Cells = Map<string, Map<string, number>>;

function add(cells: Cells, week: string, label: string, value: number): void {
  let labels = cells.get(week);
  if (!labels) cells.set(week, (labels = new Map()));
  labels.set(label, (labels.get(label) ?? 0) + value);
}

function bins(cells: Cells, round: (n: number) => number): WeekBin[] {
  const out: WeekBin[] = [];
  for (const week of [...cells.keys()].sort())
    for (const [label, value] of [...cells.get(week)!].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      out.push({ week, label, value: round(value) });
  return out;
}

const rounded = (places: number) => (n: number) => Math.round(n * 10 ** places) / 10 ** places;
const km = (metres: number) => rounded(1)(metres / 1000);

interface WeeklySums {
  trips: Record<'mode_confirm' | 'purpose_confirm', Cells>;
  metres: Record<'mode_confirm' | 'purpose_confirm', Cells>;
  kgCo2: Cells;
  responses: Map<string, { labelled: number; unlabelled: number }>;
}

function isByLabel(dimension: string): dimension is 'mode_confirm' | 'purpose_confirm' {
  return dimension === 'mode_confirm' || dimension === 'purpose_confirm';
}

/** The days' shown cells summed into the weeks shown. */
function weeklySums(days: readonly LabelMetricsDay[], weeks: ReadonlySet<string>): WeeklySums {
  const sums: WeeklySums = {
    trips: { mode_confirm: new Map(), purpose_confirm: new Map() },
    metres: { mode_confirm: new Map(), purpose_confirm: new Map() },
    kgCo2: new Map(),
    responses: new Map(),
  };
  for (const day of days) {
    const week = weekOf(day.date);
    if (!weeks.has(week)) continue;
    for (const [dimension, values] of Object.entries(day.dimensions)) {
      if (!isByLabel(dimension)) continue;
      for (const { value, measure } of values) {
        if (typeof measure === 'number') {
          if (day.metric === 'count') add(sums.trips[dimension], week, value, measure);
          if (day.metric === 'distance') add(sums.metres[dimension], week, value, measure);
        } else if ('kg_co2' in measure) add(sums.kgCo2, week, value, measure.kg_co2);
        else if (dimension === 'mode_confirm') {
          const r = sums.responses.get(week) ?? { labelled: 0, unlabelled: 0 };
          r.labelled += measure.responded;
          r.unlabelled += measure.not_responded;
          sums.responses.set(week, r);
        }
      }
    }
  }
  return sums;
}

/** Each mode's part of the period's labelled trips, largest first: an unlabelled trip has no mode to share. */
function modeShares(tripsByMode: Cells): ModeShare[] {
  const totals = new Map<string, number>();
  for (const labels of tripsByMode.values())
    for (const [label, n] of labels) if (label !== UNLABELED) totals.set(label, (totals.get(label) ?? 0) + n);
  const all = [...totals.values()].reduce((a, b) => a + b, 0);
  return [...totals]
    .map(([label, trips]) => ({ label, trips, share: rounded(3)(trips / all) }))
    .sort((a, b) => b.trips - a.trips || (a.label < b.label ? -1 : 1));
}

function labelledWeeks(responses: WeeklySums['responses']): LabelledWeek[] {
  return [...responses]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .filter(([, r]) => r.labelled + r.unlabelled > 0)
    .map(([week, r]) => ({ week, ...r, share: rounded(3)(r.labelled / (r.labelled + r.unlabelled)) }));
}

/** The labels the published figures use. */
function usedLabels(out: PublicAggregates): Set<string> {
  const used = new Set<string>();
  const series = [
    out.trips?.by_mode,
    out.trips?.by_purpose,
    out.distance_km?.by_mode,
    out.distance_km?.by_purpose,
    out.footprint_kg_co2?.by_mode,
    out.mode_share,
  ];
  for (const list of series) for (const bin of list ?? []) used.add(bin.label);
  return used;
}

/** The dashboard's data from the day summaries of the period (DASHBOARD_METRICS, k already applied). */
export function publicAggregates(days: readonly LabelMetricsDay[], context: DashboardContext): PublicAggregates {
  const sums = weeklySums(days, new Set(context.weeks));
  const shown = new Set(context.sections);
  const out: PublicAggregates = {
    program: context.program,
    name: context.name,
    k: context.k,
    weeks: [...context.weeks],
    first_date: context.weeks[0] ?? context.endDate,
    last_date: context.endDate,
    generated_at: context.generatedAt,
    sections: [...context.sections],
    labels: [],
  };
  const count = (n: number) => n;
  if (shown.has('trips'))
    out.trips = { by_mode: bins(sums.trips.mode_confirm, count), by_purpose: bins(sums.trips.purpose_confirm, count) };
  if (shown.has('distance'))
    out.distance_km = {
      by_mode: bins(sums.metres.mode_confirm, km),
      by_purpose: bins(sums.metres.purpose_confirm, km),
    };
  if (shown.has('mode_share')) out.mode_share = modeShares(sums.trips.mode_confirm);
  if (shown.has('labelled_share')) out.labelled_share = labelledWeeks(sums.responses);
  if (shown.has('footprint'))
    out.footprint_kg_co2 = context.hasFootprint ? { by_mode: bins(sums.kgCo2, rounded(2)) } : null;
  out.labels = labelNames([...usedLabels(out)].sort(), context.labelOptions);
  return out;
}
