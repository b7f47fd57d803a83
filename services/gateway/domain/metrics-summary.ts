import { type LocalDate, isoLocal, localDate } from '../../../shared/time/local-time.js';

/** What the metrics need of one built section. */
export interface SectionFact {
  userId: string;
  startTs: number;
  timeZone: string;
  mode: string;
  distance: number;
  duration: number;
}

export const METRICS = ['count', 'distance', 'duration', 'mean_speed', 'median_speed'] as const;
export type MetricName = (typeof METRICS)[number];

export function isMetricName(name: string): name is MetricName {
  return (METRICS as readonly string[]).includes(name);
}

export type ModeSummary = Record<string, unknown> & {
  ts: number;
  local_dt: LocalDate | undefined;
  fmt_time: string;
  nUsers: number;
};

/** The value of one metric over one bin's sections, per mode. `median_speed` is an alias of `mean_speed`, as in e-mission. */
function perMode(metric: MetricName, sections: readonly SectionFact[]): Record<string, number> {
  const groups = new Map<string, SectionFact[]>();
  for (const s of sections) groups.set(s.mode, [...(groups.get(s.mode) ?? []), s]);
  const out: Record<string, number> = {};
  for (const [mode, list] of groups) {
    if (metric === 'count') out[mode] = list.length;
    else if (metric === 'distance') out[mode] = list.reduce((a, s) => a + s.distance, 0);
    else if (metric === 'duration') out[mode] = list.reduce((a, s) => a + s.duration, 0);
    else {
      const speeds = list.filter((s) => s.duration > 0).map((s) => s.distance / s.duration);
      if (speeds.length > 0) out[mode] = speeds.reduce((a, v) => a + v, 0) / speeds.length;
    }
  }
  return out;
}

function summary(
  ts: number,
  timeZone: string,
  fmtTime: string,
  metric: MetricName,
  sections: readonly SectionFact[],
): ModeSummary {
  return {
    ts,
    local_dt: localDate(ts, timeZone),
    fmt_time: fmtTime,
    nUsers: new Set(sections.map((s) => s.userId)).size,
    ...perMode(metric, sections),
  };
}

const DAY_S = 86_400;

/**
 * Bins by UTC timestamp (`/result/metrics/timestamp`): `D` (days) or `M`/`MS` (calendar months), as pandas offset
 * aliases. Bins run from the first section's to the last's, empty ones included, as a pandas Grouper emits them.
 */
export function summarizeByTimestamp(
  sections: readonly SectionFact[],
  freq: string,
  metric: MetricName,
): ModeSummary[] {
  if (sections.length === 0) return [];
  const binStart = binStartFn(freq);
  const sorted = [...sections].sort((a, b) => a.startTs - b.startTs);
  const out: ModeSummary[] = [];
  let bin = binStart(sorted[0]!.startTs);
  const lastBin = binStart(sorted[sorted.length - 1]!.startTs);
  let i = 0;
  while (bin <= lastBin) {
    const next = nextBin(freq, bin);
    const inBin: SectionFact[] = [];
    while (i < sorted.length && sorted[i]!.startTs < next) inBin.push(sorted[i++]!);
    out.push(summary(bin, 'UTC', isoLocal(bin, 'UTC') ?? '', metric, inBin));
    bin = next;
  }
  return out;
}

export function isSupportedFreq(freq: string): boolean {
  return ['D', 'd', 'M', 'm', 'MS'].includes(freq);
}

function binStartFn(freq: string): (ts: number) => number {
  if (freq === 'D' || freq === 'd') return (ts) => Math.floor(ts / DAY_S) * DAY_S;
  return (ts) => {
    const d = new Date(ts * 1000);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
  };
}

function nextBin(freq: string, bin: number): number {
  if (freq === 'D' || freq === 'd') return bin + DAY_S;
  const d = new Date(bin * 1000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
}

export type LocalFreq = 'DAILY' | 'MONTHLY' | 'YEARLY';

/**
 * Bins by the sections' local date (`/result/metrics/local_date`): only non-empty groups, each stamped with the
 * start of its day, month or year in the time zone of its earliest section.
 */
export function summarizeByLocalDate(
  sections: readonly SectionFact[],
  freq: LocalFreq,
  metric: MetricName,
): ModeSummary[] {
  const groups = new Map<string, SectionFact[]>();
  const sorted = [...sections].sort((a, b) => a.startTs - b.startTs);
  for (const s of sorted) {
    const iso = isoLocal(s.startTs, s.timeZone) ?? '';
    const label = freq === 'DAILY' ? iso.slice(0, 10) : freq === 'MONTHLY' ? iso.slice(0, 7) : iso.slice(0, 4);
    groups.set(label, [...(groups.get(label) ?? []), s]);
  }
  return [...groups.entries()].map(([label, list]) => {
    const tz = list[0]!.timeZone;
    return summary(periodStart(label, tz), tz, label, metric, list);
  });
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
