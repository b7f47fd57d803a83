import { MotionType } from '../../../../shared/events/emission-enums.js';
import { percentile } from '../../../../shared/geo/geo.js';

const KMH = 1000 / 3600;
/** Faster than any road: a plane or high-speed rail. */
const AIR_SPEED_MS = 150 * KMH;
/** Fast overall and with a fast stretch: also a plane or high-speed rail. */
const AIR_AVERAGE_MS = 100 * KMH;
/** Nobody walks 10 km at more than 10 km/h; the recogniser was wrong. */
const WALK_IMPLAUSIBLE = { distanceM: 10_000, speedMs: 10 * KMH };
/** Nor cycles 100 km at more than 20 km/h. */
const BIKE_IMPLAUSIBLE = { distanceM: 100_000, speedMs: 20 * KMH };

/** The sensed mode after the sanity checks on a cleaned section's speed. */
export function overrideMode(mode: number, distance: number, duration: number, speeds: readonly number[]): number {
  const speed = duration > 0 ? distance / duration : 0;
  if (speed > AIR_SPEED_MS || (speed > AIR_AVERAGE_MS && percentile(speeds, 90) > AIR_SPEED_MS))
    return MotionType.AIR_OR_HSR;
  if (
    (mode === MotionType.ON_FOOT || mode === MotionType.WALKING) &&
    distance > WALK_IMPLAUSIBLE.distanceM &&
    speed > WALK_IMPLAUSIBLE.speedMs
  ) {
    return MotionType.UNKNOWN;
  }
  if (mode === MotionType.BICYCLING && distance > BIKE_IMPLAUSIBLE.distanceM && speed > BIKE_IMPLAUSIBLE.speedMs)
    return MotionType.UNKNOWN;
  return mode;
}
