import { describe, expect, it } from 'vitest';
import {
  addSample,
  commitRate,
  isStalled,
  lastChangeAt,
  MAX_SAMPLES_PER_PARTITION,
  partitionLag,
  positionOf,
  samplesPerWindow,
  type CommitSample,
} from './pipeline-progress.js';

const MINUTE = 60_000;

describe('pipeline progress', () => {
  it('When a group has committed nothing (-1), then its lag runs from the low watermark; else from its committed offset', () => {
    expect(partitionLag(-1, 0, 10)).toBe(10);
    expect(partitionLag(-1, 4, 10)).toBe(6);
    expect(partitionLag(7, 0, 10)).toBe(3);
    expect(partitionLag(10, 0, 10)).toBe(0);
    // A committed offset past the end (the topic was recreated) is no negative lag.
    expect(partitionLag(12, 0, 10)).toBe(0);
    expect(positionOf(-1, 4)).toBe(4);
    expect(positionOf(5, 4)).toBe(5);
  });

  it('When samples span the window, then the rate is records per second between the oldest and the newest', () => {
    let samples: CommitSample[] = [];
    for (const [at, position] of [
      [0, 100],
      [5_000, 150],
      [10_000, 300],
    ] as const)
      samples = addSample(samples, { at, position }, 5 * MINUTE, 100);
    expect(commitRate(samples)).toBe(20);
  });

  it('When there are fewer than two samples, no time between them, or the position went back, then the rate is 0', () => {
    expect(commitRate([])).toBe(0);
    expect(commitRate([{ at: 0, position: 5 }])).toBe(0);
    expect(
      commitRate([
        { at: 0, position: 5 },
        { at: 0, position: 9 },
      ]),
    ).toBe(0);
    expect(
      commitRate([
        { at: 0, position: 500 },
        { at: 10_000, position: 0 },
      ]),
    ).toBe(0);
  });

  it('When samples grow older than the window, then they are dropped and the rate covers the window only', () => {
    let samples: CommitSample[] = [];
    samples = addSample(samples, { at: 0, position: 0 }, MINUTE, 100);
    samples = addSample(samples, { at: 30_000, position: 1000 }, MINUTE, 100);
    samples = addSample(samples, { at: 90_000, position: 1000 }, MINUTE, 100);
    expect(samples.map((s) => s.at)).toEqual([30_000, 90_000]);
    expect(commitRate(samples)).toBe(0);
  });

  it('When a partition is sampled for ever, then it keeps at most maxSamples samples, the newest, and the input is not changed', () => {
    let samples: CommitSample[] = [];
    for (let i = 0; i < 1000; i++) samples = addSample(samples, { at: i, position: i }, 10 * MINUTE, 50);
    expect(samples).toHaveLength(50);
    expect(samples[0]).toEqual({ at: 950, position: 950 });
    const before = [...samples];
    addSample(samples, { at: 2000, position: 2000 }, 10 * MINUTE, 50);
    expect(samples).toEqual(before);
    expect(samplesPerWindow(5 * MINUTE, 5000)).toBe(61);
    expect(samplesPerWindow(24 * 60 * MINUTE, 1)).toBe(MAX_SAMPLES_PER_PARTITION);
    expect(samplesPerWindow(0, 5000)).toBe(2);
  });

  it('When the committed offset changes between samples, then lastChangeAt is that sample; unchanged or first, it keeps what was known', () => {
    expect(lastChangeAt(undefined, 5, 1000, null)).toBeNull();
    expect(lastChangeAt(5, 5, 2000, null)).toBeNull();
    expect(lastChangeAt(5, 9, 3000, null)).toBe(3000);
    expect(lastChangeAt(9, 9, 4000, 3000)).toBe(3000);
    // A rewind (reset-pipeline) is a change too.
    expect(lastChangeAt(9, 2, 5000, 3000)).toBe(5000);
    // The first commit of a group (-1 before).
    expect(lastChangeAt(-1, 0, 6000, null)).toBe(6000);
  });

  it('When a group has lag and no commit for stalledMinutes, then it is stalled; without lag, or watched for less, it is not', () => {
    const base = { lag: 10, lastProgressAt: 0, watchedSince: 0, stalledMinutes: 5 };
    expect(isStalled({ ...base, now: 5 * MINUTE })).toBe(true);
    expect(isStalled({ ...base, now: 5 * MINUTE - 1 })).toBe(false);
    expect(isStalled({ ...base, lag: 0, now: 60 * MINUTE })).toBe(false);
    // Never seen committing: counted from when the monitor started watching it.
    expect(isStalled({ ...base, lastProgressAt: null, watchedSince: 2 * MINUTE, now: 6 * MINUTE })).toBe(false);
    expect(isStalled({ ...base, lastProgressAt: null, watchedSince: 2 * MINUTE, now: 7 * MINUTE })).toBe(true);
    // A commit seen recently outweighs a long watch.
    expect(isStalled({ ...base, lastProgressAt: 9 * MINUTE, watchedSince: 0, now: 10 * MINUTE })).toBe(false);
  });
});
