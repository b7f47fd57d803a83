import type { LonLat } from '../../../../shared/geo/geo.js';
import { collapseTransitModes, isWalkingSpeed } from './collapse-modes.js';
import {
  isPredictedModeName,
  type MotionTypeName,
  type PredictedModeName,
  PredictedModeType,
} from './predicted-modes.js';
import { matchTransitRoutes, type TransitMatch } from './transit-match.js';
import type { TransitStop, TransitStops } from './transit-stops.js';

/** What the rule engine reads of a cleaned section. */
export interface SectionForModeInference {
  sensedMode: MotionTypeName;
  /** Median of the section's speeds (m/s); NaN when it has none. */
  medianSpeed: number;
  /** Metres. */
  distance: number;
  /** Seconds. */
  duration: number;
  startLoc: LonLat;
  endLoc: LonLat;
}

/** Which rule decided, for logs and tests. */
export type ModeRule =
  | 'air-or-hsr'
  | 'walking-speed'
  | 'overall-walking-speed'
  | 'bicycling-speed'
  | 'transit-match'
  | 'no-transit-match'
  | 'unsupported-transit-mode'
  | 'failed';

export interface ModePrediction {
  mode: PredictedModeName;
  /** The PredictedModeTypes number, the inferred section's `sensed_mode`. */
  value: number;
  /** e-mission's `predicted_mode_map`: the one predicted mode with probability 1. */
  predictedModeMap: Readonly<Partial<Record<PredictedModeName, number>>>;
  rule: ModeRule;
  /** The stop match behind a transit mode, a CAR, or an unsupported mode. */
  transit?: TransitMatch;
  /** Why the prediction failed (an error from the stop lookup, or a section without a duration). */
  failure?: unknown;
}

function predicted(mode: PredictedModeName, rule: ModeRule, extra: Partial<ModePrediction> = {}): ModePrediction {
  return { mode, value: PredictedModeType[mode], predictedModeMap: { [mode]: 1 }, rule, ...extra };
}

/** e-mission gives up on a section it cannot judge and leaves its mode UNKNOWN. */
export function failedPrediction(failure: unknown): ModePrediction {
  return predicted('UNKNOWN', 'failed', { failure });
}

/**
 * The first pass of e-mission's rule engine (`rule_engine.py`): the modes that need no public-transport data.
 * Undefined when the section needs the stops around its ends (IN_VEHICLE, or an UNKNOWN faster than walking).
 *  - AIR_OR_HSR stays AIR_OR_HSR;
 *  - UNKNOWN is WALKING at a walking median speed, or at a walking overall speed (distance / duration);
 *  - every mode other than IN_VEHICLE and UNKNOWN (ON_FOOT, BICYCLING, STILL…) is WALKING at a walking median
 *    speed, BICYCLING otherwise.
 */
export function predictModeWithoutStops(section: SectionForModeInference): ModePrediction | undefined {
  switch (section.sensedMode) {
    case 'AIR_OR_HSR':
      return predicted('AIR_OR_HSR', 'air-or-hsr');
    case 'IN_VEHICLE':
      return undefined;
    case 'UNKNOWN': {
      // A section with no speeds has no median to judge (e-mission checks that there are speeds first).
      if (!Number.isNaN(section.medianSpeed) && isWalkingSpeed(section.medianSpeed)) {
        return predicted('WALKING', 'walking-speed');
      }
      // e-mission's overall speed is None for a zero duration, and comparing None fails the whole inference.
      if (section.duration === 0) return failedPrediction('UNKNOWN section with a zero duration has no speed');
      if (isWalkingSpeed(section.distance / section.duration)) return predicted('WALKING', 'overall-walking-speed');
      return undefined;
    }
    default:
      return isWalkingSpeed(section.medianSpeed)
        ? predicted('WALKING', 'walking-speed')
        : predicted('BICYCLING', 'bicycling-speed');
  }
}

/**
 * The second pass, for a section predictModeWithoutStops left undecided, given the stops around its start and end
 * (none where no transit data covers the region): the transit mode the stops agree on; else CAR for IN_VEHICLE and
 * UNKNOWN for UNKNOWN. A matched route type outside PredictedModeTypes (ferry, trolleybus) gives UNKNOWN.
 */
export function predictModeWithStops(
  section: SectionForModeInference,
  startStops: readonly TransitStop[],
  endStops: readonly TransitStop[],
): ModePrediction {
  const decided = predictModeWithoutStops(section);
  if (decided) return decided;
  const match = matchTransitRoutes(startStops, endStops);
  const collapsed = collapseTransitModes(match?.routes ?? [], section.medianSpeed);
  const extra = match ? { transit: match } : {};
  if (collapsed.kind === 'none') {
    return predicted(section.sensedMode === 'IN_VEHICLE' ? 'CAR' : 'UNKNOWN', 'no-transit-match', extra);
  }
  if (collapsed.kind === 'mode' && isPredictedModeName(collapsed.mode)) {
    return predicted(collapsed.mode, 'transit-match', extra);
  }
  return predicted('UNKNOWN', 'unsupported-transit-mode', extra);
}

/**
 * Both passes for one section: asks for the stops only when the first pass cannot decide. Any failure (the stop
 * lookup throwing, bad data) gives UNKNOWN with the failure attached, as e-mission leaves a failed inference.
 */
export async function predictSectionMode(
  section: SectionForModeInference,
  transitStops: TransitStops,
): Promise<ModePrediction> {
  try {
    const decided = predictModeWithoutStops(section);
    if (decided) return decided;
    const [startStops, endStops] = await Promise.all([
      transitStops.stopsNear(section.startLoc),
      transitStops.stopsNear(section.endLoc),
    ]);
    return predictModeWithStops(section, startStops, endStops);
  } catch (err) {
    return failedPrediction(err);
  }
}
