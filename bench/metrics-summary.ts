/**
 * The metrics endpoints' grouping of sections into bins, timed at two sizes of one bin: a grouping linear in the
 * number of sections takes twice as long for twice as many (a ratio near 2); the quadratic one it replaced took
 * seconds at 40,000 and four times that at 80,000. Pure computation: no server, a second or two.
 */
import {
  summarizeByLocalDate,
  summarizeByTimestamp,
  type SectionFact,
} from '../services/gateway/domain/metrics-summary.js';

const AUG27 = 1440633600;
const SIZES = [40_000, 80_000] as const;

export interface MetricsSummaryFigures {
  /** Milliseconds to summarize each size (count by UTC day, distance by local day), best of five. */
  ms: Record<number, number>;
  /** ms at 80,000 over ms at 40,000: about 2 when linear, about 4 when quadratic. */
  ratio: number;
}

function sections(n: number): SectionFact[] {
  return Array.from({ length: n }, (_, i) => ({
    userId: `u${i % 7}`,
    startTs: AUG27 + (i % 80_000),
    timeZone: 'America/Los_Angeles',
    mode: i % 2 ? 'ON_FOOT' : 'IN_VEHICLE',
    distance: 10,
    duration: 5,
  }));
}

function bestOf(runs: number, work: () => void): number {
  let best = Infinity;
  for (let r = 0; r < runs; r++) {
    const started = performance.now();
    work();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

export function benchMetricsSummary(): MetricsSummaryFigures {
  const ms: Record<number, number> = {};
  for (const n of SIZES) {
    const input = sections(n);
    ms[n] = Number(
      bestOf(5, () => {
        summarizeByTimestamp(input, 'D', 'count');
        summarizeByLocalDate(input, 'DAILY', 'distance');
      }).toFixed(1),
    );
  }
  return { ms, ratio: Number((ms[SIZES[1]]! / ms[SIZES[0]]!).toFixed(2)) };
}

export function metricsSummaryRows(f: MetricsSummaryFigures): string[] {
  return [
    `| metrics grouping, one bin of ${SIZES[0].toLocaleString('en')} / ${SIZES[1].toLocaleString('en')} sections | ${f.ms[SIZES[0]]} / ${f.ms[SIZES[1]]} ms | ${SIZES[0].toLocaleString('en')} sections | ${f.ratio} (linear: about 2) |`,
  ];
}
