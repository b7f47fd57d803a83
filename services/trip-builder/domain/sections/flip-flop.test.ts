import { describe, expect, it } from 'vitest';
import { MotionType } from '../../../../shared/events/emission-enums.js';
import { applyMerges, joinSameModes, streaks } from './flip-flop.js';
import type { ChangeMotion, MotionChange } from './motion-changes.js';

const { IN_VEHICLE, BICYCLING, WALKING } = MotionType;
const T = true;
const F = false;

/** Changes over shared boundaries 0→1→2…, identified by their boundaries' timestamps. */
function chain(n: number, type: number = WALKING): MotionChange[] {
  const motions: ChangeMotion[] = Array.from({ length: n + 1 }, (_, i) => ({ ts: i, type, confidence: 100, idx: i }));
  return Array.from({ length: n }, (_, i) => ({ start: motions[i]!, end: motions[i + 1]! }));
}
const spans = (changes: MotionChange[]) => changes.map((c) => [c.start.ts, c.end.ts]);

describe('streaks (e-mission TestFlipFlopDetection.test_GetStreak*)', () => {
  it('finds the runs of flip-flops', () => {
    expect(streaks([F, F, F, T, T, F, F, F])).toEqual([[3, 4]]);
    expect(streaks([F, F, T, F, F, F, F, T, F, T, F, T, T, F, F])).toEqual([
      [2, 2],
      [7, 7],
      [9, 9],
      [11, 12],
    ]);
  });

  it('stops a run reaching the last change one short of it', () => {
    expect(streaks([F, F, T, F, F, F, F, T, F, T, F, T, T])).toEqual([
      [2, 2],
      [7, 7],
      [9, 9],
      [11, 11],
    ]);
  });

  it('keeps the last change of a one- or two-change list as a run of its own', () => {
    expect(streaks([F])).toEqual([]);
    expect(streaks([T])).toEqual([[0, 0]]);
    expect(streaks([T, F])).toEqual([[0, 0]]);
    expect(streaks([F, T])).toEqual([[1, 1]]);
  });
});

describe('applying merges (e-mission test_MergeStreaksPass1)', () => {
  it('extends the kept changes over the streaks merged forward and backward', () => {
    const changes = chain(8); // a..i as 0..8
    const merged = applyMerges(changes, [
      { start: 1, end: 2, direction: 'forward', finalMode: 'unmerged' },
      { start: 6, end: 6, direction: 'forward', finalMode: 'unmerged' },
      { start: 4, end: 4, direction: 'backward', finalMode: 'unmerged' },
    ]);
    expect(spans(merged)).toEqual([
      [0, 3],
      [3, 4],
      [4, 7],
      [7, 8],
    ]);
  });

  it('makes a long streak one new BICYCLING change', () => {
    const changes = chain(11);
    const merged = applyMerges(changes, [
      { start: 1, end: 2, direction: 'forward', finalMode: 'unmerged' },
      { start: 6, end: 6, direction: 'forward', finalMode: 'unmerged' },
      { start: 4, end: 4, direction: 'backward', finalMode: 'unmerged' },
      { start: 8, end: 10, direction: 'new', finalMode: 'merged' },
    ]);
    expect(spans(merged)).toEqual([
      [0, 3],
      [3, 4],
      [4, 7],
      [7, 8],
      [8, 11],
    ]);
    expect(merged[4]!.start.type).toBe(BICYCLING);
  });

  it('gives a change merged backward the mode of the change absorbing it, unless told to keep its own', () => {
    const changes = chain(2, BICYCLING);
    changes[1]!.start.type = IN_VEHICLE;
    const absorbed = chain(2, BICYCLING);
    absorbed[1]!.start.type = IN_VEHICLE;
    const taken = applyMerges(absorbed, [{ start: 0, end: 0, direction: 'backward', finalMode: 'unmerged' }]);
    expect(taken.map((c) => c.start.type)).toEqual([IN_VEHICLE]);
    const kept = applyMerges(changes, [{ start: 0, end: 0, direction: 'backward', finalMode: 'merged' }]);
    expect(kept.map((c) => c.start.type)).toEqual([BICYCLING]);
  });
});

describe('joining neighbours of the same mode (e-mission test_MergeStreaksPass2)', () => {
  it('joins consecutive changes whose start has the same mode', () => {
    const m = (type: number): ChangeMotion => ({ ts: 0, type, confidence: 100, idx: 0 });
    const input: MotionChange[] = [
      { start: m(WALKING), end: m(IN_VEHICLE) },
      { start: m(IN_VEHICLE), end: m(WALKING) },
      { start: m(WALKING), end: m(WALKING) },
      { start: m(WALKING), end: m(WALKING) },
      { start: m(WALKING), end: m(WALKING) },
    ];
    const out = joinSameModes(input);
    expect(out.map((c) => c.start.type)).toEqual([WALKING, IN_VEHICLE, WALKING]);
    expect(out[2]!.start).toBe(input[2]!.start);
    expect(out[2]!.end).toBe(input[4]!.end);
  });
});
