import { describe, expect, it } from 'vitest';
import type { LocationPoint } from '../observations.js';
import { fixAt } from '../../../../test/helpers/trip-builder/fixes.js';
import { findJumps } from './jump-smoothing.js';

/** Fixes at [seconds, metres north] pairs, as an Android phone (time filter) or an iPhone (distance filter) files them. */
function track(fixes: [number, number][], filter: 'time' | 'distance' = 'time'): LocationPoint[] {
  return fixes.map(([ts, metres]) => fixAt(ts, metres, { filter }));
}
/** Fixes 30 s apart at the given positions (m). */
const every30s = (positions: number[], filter?: 'time' | 'distance') =>
  track(
    positions.map((m, i) => [30 * i, m]),
    filter,
  );
const jumps = (points: LocationPoint[]) => [...findJumps(points)].sort((a, b) => a - b);

describe('findJumps (SmoothZigzag with the BoxplotOutlier fence)', () => {
  it('leaves a steady track alone', () => {
    expect(jumps(every30s([0, 100, 200, 300, 400, 500]))).toEqual([]);
  });

  it('drops an excursion between two stretches of travel', () => {
    expect(jumps(every30s([0, 100, 200, 300, 3000, 400, 500, 600, 700]))).toEqual([4]);
  });

  it('drops a jump at the end of a section (aug-27 02:26:34, a 13.9 m/s step in a 4 m/s ride)', () => {
    expect(jumps(every30s([0, 100, 200, 300, 400, 500, 600, 700, 800, 2000]))).toEqual([9]);
  });

  it('splits a run holding the excursion and the travel after it at the long step back, dropping only the excursion', () => {
    const points = track([
      [0, 0],
      [30, 100],
      [60, 200],
      [90, 300],
      [120, 3000],
      [150, 3010],
      [180, 3020],
      [1180, 400],
      [1210, 500],
      [1240, 600],
    ]);
    expect(jumps(points)).toEqual([4, 5, 6]);
  });

  it('gives up on a section whose runs cannot be told apart (no long step to split at), as e-mission does', () => {
    expect(jumps(every30s([0, 90, 180, 270, 3000, 3050, 3100, 3150]))).toEqual([]);
  });

  it('on an iPhone, takes the fast step as the jump back and the last long step before it as the jump away', () => {
    const points = track(
      [
        [0, 0],
        [30, 150],
        [60, 300],
        [90, 450],
        [690, 2000],
        [700, 600],
        [730, 750],
        [760, 900],
      ],
      'distance',
    );
    expect(jumps(points)).toEqual([4]);
  });

  it('drops a point reached faster than sound from the last one kept, whatever the fence says', () => {
    expect(
      jumps(
        track([
          [0, 0],
          [1, 10],
          [2, 20],
          [3, 30],
          [4, 1030],
          [5, 40],
        ]),
      ),
    ).toContain(4);
  });
});
