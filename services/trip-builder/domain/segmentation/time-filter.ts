import { haversine, median } from '../../../../shared/geo/geo.js';
import type { LocationPoint, MotionPoint, TransitionPoint } from '../observations.js';
import { hasMotionBetween, isRestartBetween, stoppedMovingAfter } from './restart-checking.js';
import type { Segmentation, SegmentationPoint } from './segment-points.js';

/**
 * Trip segmentation for phones that sample on a timer (Android): a trip ends when the phone has stayed within
 * a small circle for a while, or when the data stops in a way that only a stop explains.
 */
export interface TimeFilterParams {
  /** A dwell this long (s) inside the distance threshold ends a trip. */
  timeThreshold: number;
  /** Radius (m) of the dwell circle. */
  distanceThreshold: number;
  /** How many recent points the dwell check looks at (e-mission: 9 in production, 10 in its unit test). */
  pointThreshold: number;
}

export const ANDROID_TIME_FILTER: TimeFilterParams = { timeThreshold: 300, distanceThreshold: 100, pointThreshold: 9 };

/** A gap longer than this (s) always ends a trip: nobody travels 12 hours without a single fix. */
const MAX_TRIP_GAP_S = 12 * 60 * 60;
/** The dwell window must reach back at least this close to its full length (s), or the phone has not dwelt yet. */
const DWELL_WINDOW_SLACK_S = 30;
/** After a trip ends, points this close in time (s) and space (distance threshold) still belong to it. */
const JUST_ENDED_GLOM_S = 60;

export function segmentWithTimeFilter(
  points: readonly LocationPoint[],
  motions: readonly MotionPoint[],
  transitions: readonly TransitionPoint[],
  params: TimeFilterParams = ANDROID_TIME_FILTER,
): Segmentation {
  const { timeThreshold, distanceThreshold, pointThreshold } = params;
  /** Two time thresholds without a fix: either the phone stopped, or (if it moved slowly) the user did. */
  const gapS = 2 * timeThreshold;
  const stillSpeed = distanceThreshold / timeThreshold;
  const trips: SegmentationPoint[] = [];
  let tripStart = 0;
  let justEnded = false;
  let prev: number | undefined;
  let recentPoints: number[] = [];
  let recentMinutes: number[] = [];

  for (let i = 0; i < points.length; i++) {
    const curr = points[i]!;
    if (justEnded) {
      const before = i > 0 ? points[i - 1]! : undefined;
      if (before && haversine(before.loc, curr.loc) < distanceThreshold && curr.ts - before.ts <= JUST_ENDED_GLOM_S) {
        continue;
      }
      tripStart = i;
      justEnded = false;
    }
    recentMinutes = [];
    for (let k = i - 1; k >= tripStart && points[k]!.ts > curr.ts - timeThreshold; k--) recentMinutes.unshift(k);
    recentPoints = [];
    for (let k = Math.max(i - pointThreshold, tripStart); k <= i; k++) recentPoints.push(k);

    if (prev !== undefined && hasEnded(prev, i)) {
      const beforeGap = recentMinutes.length === 0;
      trips.push({ startIndex: tripStart, endIndex: endIndex(beforeGap) });
      if (beforeGap) {
        tripStart = i;
        prev = i;
      } else {
        justEnded = true;
        prev = undefined;
      }
    } else {
      prev = i;
    }
  }

  if (!justEnded && points.length > 0 && recentPoints.length > 0) {
    const last = points[points.length - 1]!;
    if (tripStart < points.length - 1 && stoppedMovingAfter(transitions, last.ts)) {
      trips.push({ startIndex: tripStart, endIndex: endIndex(recentMinutes.length === 0) });
      return { trips, openTripStart: undefined };
    }
    return { trips, openTripStart: tripStart };
  }
  return { trips, openTripStart: undefined };

  function endIndex(beforeGap: boolean): number {
    const byPoints = median(recentPoints);
    return Math.trunc(beforeGap ? byPoints : Math.min(median(recentMinutes), byPoints));
  }

  function hasEnded(p: number, c: number): boolean {
    const a = points[p]!;
    const b = points[c]!;
    const dt = b.ts - a.ts;
    const speed = dt > 0 ? haversine(a.loc, b.loc) / dt : NaN;
    if (isRestartBetween(transitions, a.ts, b.ts)) return true;
    if (dt > gapS && !hasMotionBetween(motions, a.ts, b.ts)) return true;
    if (dt > MAX_TRIP_GAP_S) return true;
    if (dt > gapS && speed < stillSpeed) return true;
    if (recentPoints.length < pointThreshold - 1) return false;
    const far = (k: number) => haversine(points[k]!.loc, b.loc) >= distanceThreshold;
    const oldest = recentMinutes.length > 0 ? b.ts - points[recentMinutes[0]!]!.ts : 0;
    return (
      recentMinutes.length > 0 &&
      !recentMinutes.some(far) &&
      !recentPoints.some(far) &&
      oldest > timeThreshold - DWELL_WINDOW_SLACK_S
    );
  }
}
