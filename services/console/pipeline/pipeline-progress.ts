/*
 * The pipeline monitor's arithmetic, apart from Kafka: lag, commit rate over a window, when a committed offset last
 * moved, and when a group counts as stalled. Times are milliseconds (the monitor's clock); offsets are numbers.
 */

/** A committed position seen at a time: the committed offset, or the low watermark when nothing is committed. */
export interface CommitSample {
  at: number;
  position: number;
}

/** Samples kept per partition at most, whatever the window and the sampling period. */
export const MAX_SAMPLES_PER_PARTITION = 720;

/** How many samples a window holds when sampled every `sampleEveryMs` (one more for the span), capped. */
export function samplesPerWindow(windowMs: number, sampleEveryMs: number): number {
  const needed = Math.ceil(windowMs / Math.max(1, sampleEveryMs)) + 1;
  return Math.max(2, Math.min(MAX_SAMPLES_PER_PARTITION, needed));
}

/**
 * Where a group stands in a partition: its committed offset, or the low watermark when it has committed nothing
 * (-1): then everything the partition still holds is ahead of it.
 */
export function positionOf(committed: number, low: number): number {
  return committed >= 0 ? committed : low;
}

/** Records between the group's position and the end of the partition (never negative). */
export function partitionLag(committed: number, low: number, end: number): number {
  return Math.max(0, end - positionOf(committed, low));
}

/**
 * The samples with `sample` added: those older than `windowMs` before it are dropped, and at most `maxSamples` of
 * the newest are kept (the memory of one partition is bounded). A new array; the input is not changed.
 */
export function addSample(
  samples: readonly CommitSample[],
  sample: CommitSample,
  windowMs: number,
  maxSamples: number,
): CommitSample[] {
  const from = sample.at - windowMs;
  const kept = samples.filter((s) => s.at >= from && s.at <= sample.at);
  kept.push(sample);
  return kept.length > maxSamples ? kept.slice(kept.length - maxSamples) : kept;
}

/**
 * Records per second committed over the samples (from the oldest to the newest). 0 with fewer than two samples
 * or no time between them, and 0 when the position went back (a reset rewound the group: no records processed).
 */
export function commitRate(samples: readonly CommitSample[]): number {
  if (samples.length < 2) return 0;
  const first = samples[0]!;
  const last = samples[samples.length - 1]!;
  const seconds = (last.at - first.at) / 1000;
  if (seconds <= 0) return 0;
  return Math.max(0, (last.position - first.position) / seconds);
}

/**
 * When the committed offset was last seen changing: `at` when it differs from the previous sample's, else what was
 * known (null: not seen changing since the monitor started; the first sample has nothing to compare with).
 */
export function lastChangeAt(
  previousCommitted: number | undefined,
  committed: number,
  at: number,
  known: number | null,
): number | null {
  return previousCommitted !== undefined && previousCommitted !== committed ? at : known;
}

/**
 * A group is stalled when it has lag and none of its partitions' committed offsets moved for `stalledMinutes`:
 * since its last seen commit, or since the monitor started watching it when it has not seen one.
 */
export function isStalled(input: {
  lag: number;
  /** The latest lastChangeAt of the group's partitions (null: none seen). */
  lastProgressAt: number | null;
  /** When the monitor first sampled the group. */
  watchedSince: number;
  now: number;
  stalledMinutes: number;
}): boolean {
  if (input.lag <= 0) return false;
  const since = input.lastProgressAt ?? input.watchedSince;
  return input.now - since >= input.stalledMinutes * 60_000;
}
