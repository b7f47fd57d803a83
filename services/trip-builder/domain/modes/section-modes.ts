import pLimit from 'p-limit';
import type { CleanedSection } from '../cleaning/cleaned-trip.js';
import { median } from '../../../../shared/geo/geo.js';
import type { BuiltTrip } from '../timeline/build-trips.js';
import { motionTypeName, type PredictedModeName, PredictedModeType } from './predicted-modes.js';
import { predictModeWithoutStops, predictModeWithStops, type SectionForModeInference } from './rule-engine.js';
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

/** Stop lookups in flight while a rebuild predicts modes: a reset of a year of trips must not flood Cassandra. */
const LOOKUPS_AT_ONCE = 8;

/**
 * Each section of `trips` with its predicted mode (`predictedMode`), decided when the trip is built and stored with
 * it, so that rendering a day (after a label, say) never asks for stops again. The stops are asked for only where
 * a rule needs them (IN_VEHICLE, or UNKNOWN faster than walking). A failed lookup fails the build, which is
 * retried, rather than leaving a drive UNKNOWN for good: the stops are our own table, not e-mission's flaky
 * Overpass server. Bad section data still gives UNKNOWN, as in e-mission.
 */
export async function withPredictedModes(trips: readonly BuiltTrip[], stops: TransitStops): Promise<BuiltTrip[]> {
  const lookups = pLimit(LOOKUPS_AT_ONCE);
  const predict = async (section: CleanedSection): Promise<PredictedModeName> => {
    const input = sectionForInference(section);
    const decided = predictModeWithoutStops(input);
    if (decided) return decided.mode;
    const [startStops, endStops] = await lookups(() =>
      Promise.all([stops.stopsNear(input.startLoc), stops.stopsNear(input.endLoc)]),
    );
    try {
      return predictModeWithStops(input, startStops, endStops).mode;
    } catch {
      return 'UNKNOWN';
    }
  };
  return Promise.all(
    trips.map(async (trip) => ({
      ...trip,
      sections: await Promise.all(trip.sections.map(async (s) => ({ ...s, predictedMode: await predict(s) }))),
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
