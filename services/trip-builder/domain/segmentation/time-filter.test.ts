import { describe, expect, it } from 'vitest';
import { toObservations } from '../observations.js';
import { loadRealDay } from '../../../../test/helpers/real-days.js';
import { segmentWithTimeFilter } from './time-filter.js';

describe('segmentWithTimeFilter', () => {
  it('reproduces the segmentation points of shankari_2015-aug-27 (e-mission TestTripSegmentation, 10 points)', () => {
    const obs = toObservations(loadRealDay('shankari_2015-aug-27'));
    const { trips } = segmentWithTimeFilter(obs.locations, obs.motions, obs.transitions, {
      timeThreshold: 300,
      distanceThreshold: 100,
      pointThreshold: 10,
    });
    expect(trips.map((t) => obs.locations[t.startIndex]!.ts)).toEqual([
      1440688739.672, 1440689662.943, 1440690718.768, 1440695152.989, 1440699933.687, 1440716367.376, 1440720239.012,
      1440728519.971,
    ]);
    expect(trips.map((t) => obs.locations[t.endIndex]!.ts)).toEqual([
      1440689408.302, 1440690108.678, 1440694424.894, 1440699298.535, 1440700070.129, 1440719699.47, 1440723334.898,
      1440729184.411,
    ]);
  });
});
