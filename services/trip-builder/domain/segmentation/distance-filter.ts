import { haversine } from '../../../../shared/geo/geo.js';
import type { LocationPoint, MotionPoint, TransitionPoint } from '../observations.js';
import { hasMotionBetween, isRestartBetween, stoppedMovingAfter } from './restart-checking.js';
import type { Segmentation, SegmentationPoint } from './segment-points.js';

/**
 * Trip segmentation for phones that report a fix only after moving some distance (iOS): the phone goes quiet
 * when the user stops, so a long silence is the stop.
 */
export interface DistanceFilterParams {
  /** A silence this long (s) between two fixes may be a stop. */
  timeThreshold: number;
  /** A fix this far (m) from the previous one starts the next trip. */
  distanceThreshold: number;
}

export const IOS_DISTANCE_FILTER: DistanceFilterParams = { timeThreshold: 600, distanceThreshold: 50 };

const MAX_TRIP_GAP_S = 12 * 60 * 60;

export function segmentWithDistanceFilter(
  points: readonly LocationPoint[],
  motions: readonly MotionPoint[],
  transitions: readonly TransitionPoint[],
  params: DistanceFilterParams = IOS_DISTANCE_FILTER,
): Segmentation {
  const { timeThreshold, distanceThreshold } = params;
  /** Covering twice the radius in half the silence is still slow enough to call the silence a stop. */
  const stillSpeed = (2 * distanceThreshold) / (timeThreshold / 2);
  const trips: SegmentationPoint[] = [];
  let tripStart: number | undefined = 0;

  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1]!;
    const b = points[i]!;
    const dt = b.ts - a.ts;
    if (!(dt > timeThreshold)) continue;
    const speed = haversine(a.loc, b.loc) / dt;
    const stopped =
      isRestartBetween(transitions, a.ts, b.ts) ||
      !hasMotionBetween(motions, a.ts, b.ts) ||
      dt > MAX_TRIP_GAP_S ||
      speed < stillSpeed;
    if (!stopped) continue;
    // A trip of a single fix is still a trip here, as in e-mission: cleaning drops it (it goes nowhere), but the
    // place it leaves behind is where the next trip is extrapolated toward and where its start is capped.
    if (tripStart !== undefined && i - 1 >= tripStart) trips.push({ startIndex: tripStart, endIndex: i - 1 });
    tripStart = nextStart(i - 1);
    if (tripStart === undefined) return { trips, openTripStart: undefined };
    // Points between the stop and the next start belong to the place; resume scanning at the start.
    if (tripStart > i) i = tripStart;
  }

  if (tripStart === undefined || tripStart >= points.length) return { trips, openTripStart: undefined };
  const last = points[points.length - 1]!;
  if (stoppedMovingAfter(transitions, last.ts)) {
    trips.push({ startIndex: tripStart, endIndex: points.length - 1 });
    return { trips, openTripStart: undefined };
  }
  return { trips, openTripStart: tripStart };

  /** The next trip starts at the first point after `from` that moved away from its predecessor. */
  function nextStart(from: number): number | undefined {
    for (let k = from + 1; k < points.length; k++) {
      if (haversine(points[k - 1]!.loc, points[k]!.loc) >= distanceThreshold) return k;
    }
    return undefined;
  }
}
