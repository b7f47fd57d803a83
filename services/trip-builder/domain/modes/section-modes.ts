import type { CleanedSection } from '../cleaning/clean-trip.js';
import { median } from '../geo.js';
import type { BuiltTrip } from '../timeline/build-trips.js';
import { motionTypeName, type PredictedModeName, PredictedModeType } from './predicted-modes.js';
import {
  predictModeWithoutStops,
  predictModeWithStops,
  predictSectionMode,
  type SectionForModeInference,
} from './rule-engine.js';
import type { TransitStops } from './transit-stops.js';

/** What the rule engine reads of one of the trip builder's cleaned sections. */
export function sectionForInference(section: CleanedSection): SectionForModeInference {
  return {
    sensedMode: motionTypeName(section.mode) ?? 'UNKNOWN',
    medianSpeed: median(section.speeds),
    distance: section.distance,
    duration: section.duration,
    startLoc: section.startLoc,
    endLoc: section.endLoc,
  };
}

/**
 * Each section of `trips` with its predicted mode (`predictedMode`), decided when the trip is built and stored with
 * it, so that rendering a day (after a label, say) never asks for stops again. The stops are asked for only where
 * a rule needs them (IN_VEHICLE, or UNKNOWN faster than walking).
 */
export async function withPredictedModes(trips: readonly BuiltTrip[], stops: TransitStops): Promise<BuiltTrip[]> {
  return Promise.all(
    trips.map(async (trip) => ({
      ...trip,
      sections: await Promise.all(
        trip.sections.map(async (s) => ({
          ...s,
          predictedMode: (await predictSectionMode(sectionForInference(s), stops)).mode,
        })),
      ),
    })),
  );
}

/**
 * A section's predicted mode: the one stored with it, or, for a trip built before modes were inferred, the rules
 * without transit data (IN_VEHICLE is CAR, a fast UNKNOWN stays UNKNOWN), as e-mission does where it has no stops.
 */
export function predictedModeOf(section: CleanedSection): PredictedModeName {
  if (section.predictedMode) return section.predictedMode;
  const input = sectionForInference(section);
  return (predictModeWithoutStops(input) ?? predictModeWithStops(input, [], [])).mode;
}

/** The PredictedModeTypes number an inferred section's `sensed_mode` holds. */
export function predictedModeValue(mode: PredictedModeName): number {
  return PredictedModeType[mode];
}
