import { MotionType } from '../../../../shared/events/emission-enums.js';
import { haversine, median, percentile } from '../../../../shared/geo/geo.js';
import { BICYCLING_SPEED_MAX_MS, WALKING_SPEED_MAX_MS } from '../sections/flip-flop.js';
import { isFoot } from '../sections/motion-changes.js';
import type { PlaceAnchor } from './cleaned-trip.js';
import type { Fix } from './resample.js';

/** When extrapolating a trip's start back to its place, never claim more than this much (s) of the stay. */
const MAX_EXTRAPOLATION_INTO_PLACE_S = 3 * 60;
/** A first fix dropped as a jump this close (m) to the place says the place itself is noise: no extrapolation. */
const BOGUS_PLACE_M = 100;
/** Tukey's "outside" fence: an extrapolated step faster than Q3 + 1.5 IQR of the section's steps is suspect. */
const UNKNOWN_IQR_FACTOR = 1.5;

export interface StartExtrapolation {
  fixes: Fix[];
  /** The joining step is faster than the section's own steps allow: its sensed mode cannot be trusted. */
  markUnknown: boolean;
}

/**
 * The phone notices a trip only some way into it. The first section's first fix is joined back to the place the
 * user left (e-mission's `_add_start_point`), at the time the section's median speed says it took to cover that
 * gap (the median of the non-zero speeds if that is 0), but never before the user got there: then half the stay,
 * at most three minutes, after arriving. `tripFirst` is the trip's first raw fix, `firstWasJump` whether it was
 * dropped as a jump.
 *
 * For a short walk or ride whose gap is more than twice its own length, e-mission wants a slightly slower speed
 * when the median is implausible for the mode but 90 % of it is not; its code divides the gap by the result of
 * the plausibility test (`True`), so the step is taken at 1 m/s. That is what is reproduced here.
 */
export function extrapolateStart(
  fixes: readonly Fix[],
  place: PlaceAnchor,
  mode: number,
  tripFirst: Fix,
  firstWasJump: boolean,
): StartExtrapolation {
  const unchanged = { fixes: [...fixes], markUnknown: false };
  const first = fixes[0]!;
  if (firstWasJump && haversine(tripFirst.loc, place.loc) < BOGUS_PLACE_M) return unchanged;
  const gap = haversine(first.loc, place.loc);
  const steps = stepSpeeds(fixes);
  const covered = steps.distance;
  const medianSpeed = median(steps.speeds);
  let delay: number;
  if (medianSpeed > 0) {
    delay = gap / medianSpeed;
    if (gap > 2 * covered && mode !== MotionType.IN_VEHICLE) {
      const limit = isFoot(mode) ? WALKING_SPEED_MAX_MS : BICYCLING_SPEED_MAX_MS;
      const plausible = (speed: number) => !(speed > limit);
      if (!plausible(medianSpeed) && plausible(0.9 * medianSpeed)) delay = gap;
    }
  } else {
    const nonZero = median(steps.speeds.filter((s) => s !== 0));
    delay = Number.isNaN(nonZero) ? 0 : gap / nonZero;
  }
  if (delay === 0) return unchanged;

  let ts = first.ts - delay;
  if (ts < place.enterTs) {
    const stay = tripFirst.ts - place.enterTs;
    ts = stay === 0 ? place.enterTs : place.enterTs + Math.min(stay / 2, MAX_EXTRAPOLATION_INTO_PLACE_S);
  }
  const extended = [{ ts, loc: place.loc, altitude: first.altitude }, ...fixes];
  return { fixes: extended, markUnknown: isOutlierStep(extended) };
}

/** Whether the step onto the first real fix is an outlier among the steps between the real fixes. */
function isOutlierStep(fixes: readonly Fix[]): boolean {
  const { speeds } = stepSpeeds(fixes);
  const rest = speeds.slice(2);
  if (rest.length === 0) return false;
  const q1 = percentile(rest, 25);
  const q3 = percentile(rest, 75);
  return speeds[1]! > q3 + UNKNOWN_IQR_FACTOR * (q3 - q1);
}

/** Speeds from each fix to the next, the first fix counting as 0 (e-mission's `add_dist_heading_speed`). */
function stepSpeeds(fixes: readonly Fix[]): { speeds: number[]; distance: number } {
  const speeds = [0];
  let distance = 0;
  for (let i = 1; i < fixes.length; i++) {
    const d = haversine(fixes[i - 1]!.loc, fixes[i]!.loc);
    const dt = fixes[i]!.ts - fixes[i - 1]!.ts;
    distance += d;
    speeds.push(dt === 0 ? 0 : d / dt);
  }
  return { speeds, distance };
}
