import { describe, expect, it } from 'vitest';
import { LABEL_METRICS } from './label-metrics.js';
import { METRICS } from './metrics-summary.js';
import { addSums, addTravel, isSummedMetric, SUMMED_METRICS, type TravelSums } from './summed-metrics.js';

describe('the metrics summed straight from what is counted', () => {
  it('When sections or trips are added, then the sums are how many, their metres and their seconds', () => {
    const day: TravelSums = { count: 0, distance: 0, duration: 0 };
    addTravel(day, { distance: 1200, duration: 300 });
    addTravel(day, { distance: 800, duration: 100 });
    expect(day).toEqual({ count: 2, distance: 2000, duration: 400 });
    const month: TravelSums = { count: 1, distance: 10, duration: 5 };
    addSums(month, day);
    expect(month).toEqual({ count: 3, distance: 2010, duration: 405 });
  });

  it('When either dashboard lists its metrics, then the summed ones come first; the others are not summed', () => {
    expect(METRICS.slice(0, 3)).toEqual([...SUMMED_METRICS]);
    expect(LABEL_METRICS.slice(0, 3)).toEqual([...SUMMED_METRICS]);
    expect(['mean_speed', 'median_speed', 'response_count', 'footprint', 'constructor'].some(isSummedMetric)).toBe(
      false,
    );
  });
});
