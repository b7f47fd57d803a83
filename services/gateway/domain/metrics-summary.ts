import type { SectionFact } from '../../../shared/tables/section-metrics.js';
import { type LocalDate, isoLocal, localDate } from '../../../shared/time/local-time.js';
import { addSums, addTravel, isSummedMetric, SUMMED_METRICS, type TravelSums } from './summed-metrics.js';

/** What the metrics need of one built section: a row of the section metrics the trip builder keeps. */
export type { SectionFact };

export const METRICS = [...SUMMED_METRICS, 'mean_speed', 'median_speed'] as const;
export type MetricName = (typeof METRICS)[number];

const METRIC_SET: ReadonlySet<string> = new Set(METRICS);

/** Own-set membership only: `constructor` or `__proto__` are unknown names, not inherited properties. */
export function isMetricName(name: string): name is MetricName {
  return METRIC_SET.has(name);
}

export type ModeSummary = Record<string, unknown> & {
  ts: number;
  local_dt: LocalDate | undefined;
  fmt_time: string;
  nUsers: number;
};

/** Running totals of one mode in one bin: constant work per section, whatever the bin's size. */
interface ModeTotals extends TravelSums {
  speedSum: number;
  speedCount: number;
  /** Distinct users of this mode, remembered only up to `minUsers`: enough to know whether the cell may be shown. */
  users: Set<string>;
}

interface Bin {
  users: Set<string>;
  modes: Map<string, ModeTotals>;
  /** The earliest section, whose zone stamps a local-date bin. */
  firstTs: number;
  firstZone: string;
}

export type TimestampFreq = 'D' | 'M';
export type LocalFreq = 'DAILY' | 'MONTHLY' | 'YEARLY';
export type Binning = { by: 'timestamp'; freq: TimestampFreq } | { by: 'local_date'; freq: LocalFreq };

/** pandas offset aliases e-mission's timestamp metrics accept, and the bin each means. */
const TIMESTAMP_FREQS = new Map<string, TimestampFreq>([
  ['D', 'D'],
  ['d', 'D'],
  ['M', 'M'],
  ['m', 'M'],
  ['MS', 'M'],
]);

export function timestampFreq(freq: string): TimestampFreq | undefined {
  return TIMESTAMP_FREQS.get(freq);
}

const DAY_S = 86_400;

/**
 * k-anonymity of an aggregate cell: a user is remembered only while fewer than `minUsers` are known, which is
 * enough to tell whether the cell may be shown (constant memory per cell, whatever the number of users).
 */
export function rememberUser(users: Set<string>, userId: string, minUsers: number): void {
  if (users.size < minUsers) users.add(userId);
}

/** A cell computed from at least `minUsers` distinct users may be shown (k = 1: always). */
export function passesK(users: ReadonlySet<string>, minUsers: number): boolean {
  return users.size >= minUsers;
}

export interface MetricsAccumulator {
  add(section: SectionFact): void;
  /** The bins of one metric, in time order. */
  summaries(metric: MetricName): ModeSummary[];
}

export interface AccumulatorOptions {
  /** k: the fewest distinct users a value may be computed from (1 for a user's own metrics). @defaultValue 1 */
  minUsers?: number;
  /**
   * The (whole-bin) range asked, for timestamp bins: every bin in it is answered, empty or not, instead of the bins
   * from the first section's to the last's. For aggregates, where the series' first and last bins would otherwise
   * tell on which day the first and last person over all users travelled, even when those bins are withheld.
   */
  span?: { startTs: number; endTs: number };
}

/**
 * Sums sections into bins as they stream in, so a call holds running totals rather than every section, and
 * each section costs the same whatever the number already seen (the old grouping copied a bin's array per
 * section: quadratic, 5–29 s for 40,000 sections).
 *
 * `minUsers` is the k of k-anonymity for aggregates over everyone: a mode's value in a bin is shown only when at
 * least k distinct users contribute to it, and a bin with fewer than k users is answered as an empty bin (no
 * modes, nUsers 0). An empty bin, rather than a missing one, keeps the series regular for clients that index bins
 * by position, and the app already draws it as "no data"; its true nUsers is withheld because "1 user travelled
 * that day" is itself what the suppression protects. Per-mode suppression matters too: in a bin of 50 users, the
 * one person who cycled would otherwise be published as "BICYCLING: 8400 m". A user's own metrics use k = 1.
 * Local-date aggregate bins below k are left out altogether: that series is sparse anyway.
 *
 * The k rule is applied per day, and month and year bins are sums of the days (and of the modes within a day)
 * that passed it. Applying it only to the coarse bin would let anyone subtract: a month of 40 users minus its
 * visible days gives the hidden day's lone traveller, and a month's cyclists minus the days that show cycling
 * give the one who cycled alone. Built from passed days only, a month tells nothing its days do not: the price
 * is that a month of five people who each travel on a different day shows nothing.
 */
export function createMetricsAccumulator(binning: Binning, options: AccumulatorOptions = {}): MetricsAccumulator {
  const { minUsers = 1, span } = options;
  /** Day cells: UTC days (timestamp bins) or local dates (local-date bins); the unit the k rule is applied to. */
  const days = new Map<string | number, Bin>();
  const dayKey = binning.by === 'timestamp' ? timestampBinStart('D') : (s: SectionFact) => localLabel(s, 'DAILY');
  const daily = binning.freq === 'D' || binning.freq === 'DAILY';
  let minTs = Infinity;
  let maxTs = -Infinity;
  /** The answered bins, derived from the day cells on first use and again after more sections arrive. */
  let rolled: Map<string | number, Bin> | undefined;

  function add(s: SectionFact): void {
    rolled = undefined;
    const bin = binKeepingEarliest(days, dayKey(s), s.startTs, s.timeZone);
    bin.users.add(s.userId);
    let m = bin.modes.get(s.mode);
    if (!m) {
      m = { count: 0, distance: 0, duration: 0, speedSum: 0, speedCount: 0, users: new Set() };
      bin.modes.set(s.mode, m);
    }
    addTravel(m, s);
    if (s.duration > 0) {
      m.speedSum += s.distance / s.duration;
      m.speedCount += 1;
    }
    rememberUser(m.users, s.userId, minUsers);
    minTs = Math.min(minTs, s.startTs);
    maxTs = Math.max(maxTs, s.startTs);
  }

  /** Month or year bins from the day cells that passed k, each day's modes only where they passed k too. */
  function rollUp(): Map<string | number, Bin> {
    if (daily) return days;
    const coarseKey =
      binning.by === 'timestamp'
        ? (day: string | number) => timestampBinStart('M')({ startTs: Number(day) })
        : (day: string | number) => String(day).slice(0, binning.freq === 'MONTHLY' ? 7 : 4);
    const out = new Map<string | number, Bin>();
    for (const [day, cell] of days) {
      if (!passesK(cell.users, minUsers)) continue;
      const bin = binKeepingEarliest(out, coarseKey(day), cell.firstTs, cell.firstZone);
      for (const u of cell.users) bin.users.add(u);
      for (const [mode, m] of cell.modes) {
        if (!passesK(m.users, minUsers)) continue;
        const into = bin.modes.get(mode);
        if (!into) {
          bin.modes.set(mode, { ...m, users: new Set(m.users) });
          continue;
        }
        addSums(into, m);
        into.speedSum += m.speedSum;
        into.speedCount += m.speedCount;
        for (const u of m.users) rememberUser(into.users, u, minUsers);
      }
    }
    return out;
  }

  function summary(
    ts: number,
    timeZone: string,
    fmtTime: string,
    metric: MetricName,
    bin: Bin | undefined,
  ): ModeSummary {
    const out: ModeSummary = { ts, local_dt: localDate(ts, timeZone), fmt_time: fmtTime, nUsers: 0 };
    if (!bin || !passesK(bin.users, minUsers)) return out;
    out.nUsers = bin.users.size;
    for (const [mode, m] of bin.modes) {
      if (!passesK(m.users, minUsers)) continue;
      const value = modeValue(metric, m);
      // Mode names come from stored data; defineProperty keeps a "__proto__" mode an ordinary key.
      if (value !== undefined && !Object.hasOwn(out, mode))
        Object.defineProperty(out, mode, { value, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }

  function summaries(metric: MetricName): ModeSummary[] {
    const bins = (rolled ??= rollUp());
    if (binning.by === 'timestamp') {
      // Every bin from the first section's to the last's (or of the whole span), empty ones included, as a pandas
      // Grouper emits them.
      const [from, to] = span ? [span.startTs, span.endTs] : [minTs, maxTs];
      if (!span && days.size === 0) return [];
      const start = timestampBinStart(binning.freq);
      const out: ModeSummary[] = [];
      for (let bin = start({ startTs: from }); bin <= to; bin = nextTimestampBin(binning.freq, bin)) {
        out.push(summary(bin, 'UTC', isoLocal(bin, 'UTC') ?? '', metric, bins.get(bin)));
      }
      return out;
    }
    // Only non-empty local bins (for aggregates, only those that passed k), stamped at the start of their period
    // in the zone of their earliest section.
    return [...bins.entries()]
      .filter(([, bin]) => minUsers <= 1 || bin.users.size >= minUsers)
      .sort(([, a], [, b]) => a.firstTs - b.firstTs)
      .map(([label, bin]) => {
        const zone = knownZone(bin.firstZone);
        return summary(periodStart(String(label), zone), zone, String(label), metric, bin);
      });
  }

  return { add, summaries };
}

/**
 * The whole timestamp bins around [startTs, endTs]: from the start of the first bin to the end of the last, so an
 * aggregate bin is always computed over all of its day or month, never over a range a caller can move by a
 * second to make two answers differ by one person's section. `endTs` is a millisecond before the next bin
 * (start times are doubles: a section at 23:59:59.5 belongs to its day; the scan's range is inclusive).
 */
export function wholeTimestampBins(
  freq: TimestampFreq,
  startTs: number,
  endTs: number,
): { startTs: number; endTs: number } {
  const binStart = timestampBinStart(freq);
  const next = nextTimestampBin(freq, binStart({ startTs: endTs }));
  return { startTs: binStart({ startTs }), endTs: next - 1e-3 };
}

/** The value of one metric for one mode. `median_speed` is an alias of `mean_speed`, as in e-mission. */
function modeValue(metric: MetricName, m: ModeTotals): number | undefined {
  if (isSummedMetric(metric)) return m[metric];
  return m.speedCount > 0 ? m.speedSum / m.speedCount : undefined;
}

/**
 * The bin under `key`, made on its first section (or day). A bin is stamped with its earliest one's time and zone,
 * whatever order they arrive in: a local-date bin's start is read in that zone.
 */
function binKeepingEarliest(bins: Map<string | number, Bin>, key: string | number, ts: number, zone: string): Bin {
  let bin = bins.get(key);
  if (!bin) {
    bin = { users: new Set(), modes: new Map(), firstTs: ts, firstZone: zone };
    bins.set(key, bin);
  } else if (ts < bin.firstTs) {
    bin.firstTs = ts;
    bin.firstZone = zone;
  }
  return bin;
}

function timestampBinStart(freq: TimestampFreq): (s: Pick<SectionFact, 'startTs'>) => number {
  if (freq === 'D') return (s) => Math.floor(s.startTs / DAY_S) * DAY_S;
  return (s) => {
    const d = new Date(s.startTs * 1000);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
  };
}

function nextTimestampBin(freq: TimestampFreq, bin: number): number {
  if (freq === 'D') return bin + DAY_S;
  const d = new Date(bin * 1000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
}

function knownZone(timeZone: string): string {
  return localDate(0, timeZone) ? timeZone : 'UTC';
}

/** The section's local day, month or year label (`2015-08-27`, `2015-08`, `2015`); UTC when its zone is unknown. */
export function localLabel(s: Pick<SectionFact, 'startTs' | 'timeZone'>, freq: LocalFreq): string {
  const iso = isoLocal(s.startTs, s.timeZone) ?? isoLocal(s.startTs, 'UTC') ?? '';
  return freq === 'DAILY' ? iso.slice(0, 10) : freq === 'MONTHLY' ? iso.slice(0, 7) : iso.slice(0, 4);
}

/** The epoch second at which a local day, month or year label (`2015-08-27`, `2015-08`, `2015`) starts in a zone. */
function periodStart(label: string, timeZone: string): number {
  const [y, m = '01', d = '01'] = label.split('-');
  const wallAsUtc = Date.UTC(Number(y), Number(m) - 1, Number(d)) / 1000;
  // The zone's offset at that wall time; one correction step suffices away from DST switches at midnight.
  const probe = localDate(wallAsUtc, timeZone);
  if (!probe) return wallAsUtc;
  const shownAsUtc = Date.UTC(probe.year, probe.month - 1, probe.day, probe.hour, probe.minute, probe.second) / 1000;
  return wallAsUtc - (shownAsUtc - wallAsUtc);
}

/** One-shot summaries over a list, for callers (and tests) that already hold the sections. */
function summarizeList(
  sections: readonly SectionFact[],
  binning: Binning,
  metric: MetricName,
  options: AccumulatorOptions,
): ModeSummary[] {
  const acc = createMetricsAccumulator(binning, options);
  for (const s of sections) acc.add(s);
  return acc.summaries(metric);
}

/** A one-shot summary over one kind of bin, named by its frequency. */
type OneShotSummary<Freq> = (
  sections: readonly SectionFact[],
  freq: Freq,
  metric: MetricName,
  options?: AccumulatorOptions,
) => ModeSummary[];

export const summarizeByTimestamp: OneShotSummary<TimestampFreq> = (sections, freq, metric, options = {}) =>
  summarizeList(sections, { by: 'timestamp', freq }, metric, options);

export const summarizeByLocalDate: OneShotSummary<LocalFreq> = (sections, freq, metric, options = {}) =>
  summarizeList(sections, { by: 'local_date', freq }, metric, options);
