import { describe, expect, it } from 'vitest';
import { MotionType } from '../../../../shared/events/emission-enums.js';
import type { CleanedSection } from '../cleaning/cleaned-trip.js';
import type { BuiltTrip } from '../timeline/build-trips.js';
import { busStop, route } from '../../../../test/helpers/trip-builder/fake-stops.js';
import { predictedModeOf, withPredictedModes } from './section-modes.js';
import type { TransitStop, TransitStops } from './transit-stops.js';

function section(mode: number, speed: number, startLoc: [number, number] = [0, 0]): CleanedSection {
  return {
    startTs: 0,
    endTs: 600,
    startLoc,
    endLoc: [0.05, 0.05],
    duration: 600,
    distance: speed * 600,
    mode,
    times: [0, 300, 600],
    coordinates: [startLoc, [0.02, 0.02], [0.05, 0.05]],
    speeds: [speed, speed, speed],
    distances: [0, speed * 300, speed * 300],
  };
}

const trip = (...sections: CleanedSection[]) => ({ sections }) as unknown as BuiltTrip;

/** Stops answering every point the same way, counting the lookups. */
function stopsEverywhere(stops: readonly TransitStop[]) {
  const asked: unknown[] = [];
  const source: TransitStops = {
    stopsNear: async (point) => {
      asked.push(point);
      return stops;
    },
  };
  return { source, asked };
}

describe('section modes', () => {
  it('When a trip is built with transit data, then an IN_VEHICLE section between stops of one bus route is BUS, and walking needs no lookup', async () => {
    const { source, asked } = stopsEverywhere([busStop(1, [route(10, 'bus')])]);
    const [built] = await withPredictedModes(
      [trip(section(MotionType.ON_FOOT, 1.2), section(MotionType.IN_VEHICLE, 7))],
      source,
    );
    expect(built!.sections.map((s) => s.predictedMode)).toEqual(['WALKING', 'BUS']);
    expect(asked).toHaveLength(2); // the bus section's start and end only
  });

  it('When the stop lookup fails, then the build fails (and is retried) rather than leaving the drive UNKNOWN', async () => {
    const failing: TransitStops = {
      stopsNear: async () => {
        throw new Error('cassandra down');
      },
    };
    await expect(withPredictedModes([trip(section(MotionType.IN_VEHICLE, 12))], failing)).rejects.toThrow(
      'cassandra down',
    );
  });

  it('When a section was stored before modes were inferred, then its mode follows the rules without transit data', () => {
    expect(predictedModeOf(section(MotionType.IN_VEHICLE, 12))).toBe('CAR');
    expect(predictedModeOf(section(MotionType.ON_FOOT, 1.1))).toBe('WALKING');
    expect(predictedModeOf(section(MotionType.BICYCLING, 4.5))).toBe('BICYCLING');
    expect(predictedModeOf(section(MotionType.UNKNOWN, 15))).toBe('UNKNOWN');
    expect(predictedModeOf({ ...section(MotionType.IN_VEHICLE, 12), predictedMode: 'TRAIN' })).toBe('TRAIN');
  });
});
