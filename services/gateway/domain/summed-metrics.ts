/**
 * The metrics both dashboards sum straight from what they count, sections by mode as labelled trips by label: how
 * many, their metres and their seconds. Every aggregate cell keeps these running sums under the metrics' own names,
 * so reading one of these metrics is reading its sum; the other metrics are each computed their own way.
 */
export const SUMMED_METRICS = ['count', 'distance', 'duration'] as const;
export type SummedMetric = (typeof SUMMED_METRICS)[number];

/** A cell's running sums, one per summed metric. */
export type TravelSums = Record<SummedMetric, number>;

const SUMMED_METRIC_SET: ReadonlySet<string> = new Set(SUMMED_METRICS);
export function isSummedMetric(name: string): name is SummedMetric {
  return SUMMED_METRIC_SET.has(name);
}

/** One more section or trip into a cell's sums. */
export function addTravel(sums: TravelSums, travelled: { distance: number; duration: number }): void {
  sums.count += 1;
  sums.distance += travelled.distance;
  sums.duration += travelled.duration;
}

/** Another cell's sums into a coarser cell's (days into a month). */
export function addSums(into: TravelSums, from: Readonly<TravelSums>): void {
  into.count += from.count;
  into.distance += from.distance;
  into.duration += from.duration;
}
