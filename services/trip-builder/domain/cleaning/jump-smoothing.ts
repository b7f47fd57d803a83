import { haversine, percentile } from '../../../../shared/geo/geo.js';
import type { LocationPoint } from '../observations.js';

/** Speeds above Q3 + this × IQR of a section's speeds are jumps (Tukey's "far out" fence). */
const JUMP_IQR_FACTOR = 3;
/** A run of fixes between two jumps whose ends lie closer than this (m) is a cluster: the phone stayed put. */
const CLUSTER_RADIUS_M = 100;
/** Nothing on the ground moves faster than sound; a point implying it is wrong whatever the statistics say. */
export const MACH1_MS = 340.29;

/** A run of fixes [start, end) between two jumps. */
interface Run {
  start: number;
  end: number;
  /** From its first fix to its last (m). */
  extent: number;
  cluster: boolean;
  good?: boolean;
}

/**
 * Finds the fixes of a section that are GPS jumps, returning their indexes (e-mission's `SmoothZigzag` with the
 * `BoxplotOutlier` speed fence, Android's way). A step faster than the fence is a jump; the jumps cut the section
 * into runs. The most trustworthy run is the shortest one that is not a cluster (a real stretch of travel, yet
 * the least likely to be a long excursion); from it outward the runs alternate bad, good, bad: the phone jumped
 * away, jumped back. A run due to be bad that is not a cluster holds the phone's excursion and the travel after
 * its return, so it is split at its first step longer than the cluster radius (scanning away from the good run)
 * and only the excursion is bad. Fixes of bad runs are jumps. When the runs cannot be told apart that way (a run
 * to split has no long step, or a split leaves no cluster), e-mission gives up on the section and so does this.
 * Then, if a step faster than sound remains, each point reached at such a speed from the last kept one is dropped.
 */
export function findJumps(points: readonly LocationPoint[]): Set<number> {
  const deleted = zigzagJumps(points);
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

function zigzagJumps(points: readonly LocationPoint[]): Set<number> {
  const deleted = new Set<number>();
  if (points.length < 2) return deleted;
  const { steps, speeds } = stepsOf(points);
  // The first fix's speed (0) counts, as in e-mission's fence.
  const q1 = percentile(speeds, 25);
  const q3 = percentile(speeds, 75);
  const maxSpeed = q3 + JUMP_IQR_FACTOR * (q3 - q1);
  const jumps = isDistanceFiltered(points) ? iosJumps(steps, speeds, maxSpeed) : androidJumps(speeds, maxSpeed);
  if (!jumps) return deleted;
  const cuts = [0, ...jumps, points.length];
  const runs = cuts.slice(1).map((end, k) => run(points, cuts[k]!, end));
  if (runs.length === 1) return deleted;

  const startAt = trustedRun(runs);
  runs[startAt]!.good = true;
  // Rightward: each run after the trusted one, alternating bad and good.
  let good = false;
  for (let i = startAt + 1; i < runs.length; i++) {
    let r = runs[i]!;
    if (!good && !r.cluster) {
      const at = firstLongStep(steps, r.start + 1, r.end, 1);
      if (at === undefined) return deleted;
      r = run(points, r.start, at);
      runs.splice(i, 1, r, run(points, at, runs[i]!.end));
      if (!r.cluster) return deleted;
    }
    r.good = good;
    good = !good;
  }
  // Leftward, the same from the trusted run's other side.
  good = false;
  for (let i = startAt - 1; i >= 0; i--) {
    let r = runs[i]!;
    if (!good && !r.cluster) {
      const at = firstLongStep(steps, r.end - 1, r.start, -1);
      if (at === undefined) return deleted;
      r = run(points, at, r.end);
      runs.splice(i, 1, run(points, runs[i]!.start, at), r);
      i += 1;
      if (!r.cluster) return deleted;
    }
    r.good = good;
    good = !good;
  }
  for (const r of runs) if (r.good === false) for (let k = r.start; k < r.end; k++) deleted.add(k);
  return deleted;
}

/** Android samples on a timer: every step faster than the fence starts a new run. */
function androidJumps(speeds: readonly number[], maxSpeed: number): number[] {
  const jumps: number[] = [];
  for (let i = 1; i < speeds.length; i++) if (speeds[i]! > maxSpeed) jumps.push(i);
  return jumps;
}

/**
 * An iPhone reports a fix only after moving a set distance, so a fast step is most likely the jump back; the
 * jump away is the last long step (over the cluster radius) before it, and both start a new run. Undefined where
 * e-mission gives up on the section: a jump back with no long step before it, or two jumps sharing a step.
 */
function iosJumps(steps: readonly number[], speeds: readonly number[], maxSpeed: number): number[] | undefined {
  const jumps: number[] = [];
  for (let i = 1; i < steps.length; i++) {
    if (!(speeds[i]! > maxSpeed && steps[i]! > CLUSTER_RADIUS_M)) continue;
    let away = i - 1;
    while (away >= 1 && !(steps[away]! > CLUSTER_RADIUS_M)) away -= 1;
    if (away < 1) return undefined;
    jumps.push(away, i);
  }
  return jumps.every((j, k) => k === 0 || j > jumps[k - 1]!) ? jumps : undefined;
}

function isDistanceFiltered(points: readonly LocationPoint[]): boolean {
  return points.length > 0 && points.every((p) => p.filter === 'distance');
}

function run(points: readonly LocationPoint[], start: number, end: number): Run {
  const extent = haversine(points[start]!.loc, points[end - 1]!.loc);
  return { start, end, extent, cluster: extent < CLUSTER_RADIUS_M };
}

/**
 * The run to trust first: the shortest that is not a cluster. If all are clusters, the one beside the shortest
 * (a single-point cluster is most likely the bad one): after it, or before it when it is not the first.
 */
function trustedRun(runs: readonly Run[]): number {
  let best: number | undefined;
  let shortest = 0;
  runs.forEach((r, i) => {
    if (!r.cluster && (best === undefined || r.extent < runs[best]!.extent)) best = i;
    if (r.extent < runs[shortest]!.extent) shortest = i;
  });
  if (best !== undefined) return best;
  return shortest === 0 ? 1 : shortest - 1;
}

/**
 * Where a run due to be bad is cut: scanning from `from` towards `to`, the first fix k whose step from k - 1 is
 * longer than the cluster radius (the run is cut between k - 1 and k). Undefined when no step is that long.
 */
function firstLongStep(steps: readonly number[], from: number, to: number, direction: 1 | -1): number | undefined {
  for (let k = from; direction === 1 ? k < to : k > to; k += direction) if (steps[k]! > CLUSTER_RADIUS_M) return k;
  return undefined;
}

/** Each fix's step from the one before (m) and its speed (m/s); the first fix's are 0 (`add_dist_heading_speed`). */
function stepsOf(points: readonly LocationPoint[]): { steps: number[]; speeds: number[] } {
  const steps = [0];
  const speeds = [0];
  for (let i = 1; i < points.length; i++) {
    const d = haversine(points[i - 1]!.loc, points[i]!.loc);
    const dt = points[i]!.ts - points[i - 1]!.ts;
    steps.push(d);
    speeds.push(dt > 0 ? d / dt : 0);
  }
  return { steps, speeds };
}
