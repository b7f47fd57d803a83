import { haversine, percentile } from '../geo.js';
import type { LocationPoint } from '../observations.js';

/** Speeds above Q3 + this × IQR of a section's speeds are jumps (Tukey's "far out" fence). */
const JUMP_IQR_FACTOR = 3;
/** A stretch between two jumps that spans less than this (m) is a cluster: the phone jumped away and back. */
const CLUSTER_EXTENT_M = 100;
/** Nothing on the ground moves faster than sound; a point implying it is wrong whatever the statistics say. */
export const MACH1_MS = 340.29;

/**
 * Finds the fixes of a section that are GPS jumps, returning their indexes. First the zigzag rule: the section is
 * cut at every implausibly fast step, and a short stretch with a jump on both sides is an excursion the user
 * never made. Then, if a step faster than sound remains, each point reached at such a speed from the last kept
 * point is dropped.
 */
export function findJumps(points: readonly LocationPoint[]): Set<number> {
  const deleted = new Set<number>();
  if (points.length < 3) return deleted;
  const speeds = stepSpeeds(points);
  const q1 = percentile(speeds.slice(1), 25);
  const q3 = percentile(speeds.slice(1), 75);
  const maxSpeed = q3 + JUMP_IQR_FACTOR * (q3 - q1);

  const cuts: number[] = [];
  for (let i = 1; i < points.length; i++) if (speeds[i]! > maxSpeed) cuts.push(i);
  const stretches: [number, number][] = [];
  let from = 0;
  for (const c of cuts) {
    stretches.push([from, c - 1]);
    from = c;
  }
  stretches.push([from, points.length - 1]);
  for (let s = 1; s < stretches.length - 1; s++) {
    const [a, b] = stretches[s]!;
    if (haversine(points[a]!.loc, points[b]!.loc) < CLUSTER_EXTENT_M && b - a + 1 < points.length >> 1) {
      for (let k = a; k <= b; k++) deleted.add(k);
    }
  }

  let lastKept = 0;
  for (let i = 1; i < points.length; i++) {
    if (deleted.has(i)) continue;
    const a = points[lastKept]!;
    const b = points[i]!;
    const dt = b.ts - a.ts;
    if (dt > 0 && haversine(a.loc, b.loc) / dt >= MACH1_MS) deleted.add(i);
    else lastKept = i;
  }
  return deleted;
}

function stepSpeeds(points: readonly LocationPoint[]): number[] {
  const speeds = [0];
  for (let i = 1; i < points.length; i++) {
    const dt = points[i]!.ts - points[i - 1]!.ts;
    speeds.push(dt > 0 ? haversine(points[i - 1]!.loc, points[i]!.loc) / dt : 0);
  }
  return speeds;
}
