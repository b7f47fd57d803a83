import type { Observations } from '../observations.js';
import { segmentWithDistanceFilter } from './distance-filter.js';
import type { SegmentationPoint } from './segment-points.js';
import { segmentWithTimeFilter } from './time-filter.js';

export type SegmenterName = 'DwellSegmentationTimeFilter' | 'DwellSegmentationDistFilter';

export interface FoundTrip extends SegmentationPoint {
  source: SegmenterName;
}

export interface TripSegmentation {
  trips: FoundTrip[];
  /** Index of the first point of the trip still open at the end of the data. */
  openTripStart: number | undefined;
}

/**
 * Segments the locations into trips with the dwell filter the phone used. A phone that switched filters (an
 * Android user who moved to an iPhone mid-study) gives runs of each kind; each run is segmented on its own.
 */
export function segmentTrips(obs: Observations): TripSegmentation {
  const { locations, motions, transitions } = obs;
  const trips: FoundTrip[] = [];
  let openTripStart: number | undefined;
  let runStart = 0;
  while (runStart < locations.length) {
    const filter = locations[runStart]!.filter;
    let runEnd = runStart;
    while (runEnd + 1 < locations.length && locations[runEnd + 1]!.filter === filter) runEnd++;
    const run = locations.slice(runStart, runEnd + 1);
    const isDistance = filter === 'distance';
    const found = isDistance
      ? segmentWithDistanceFilter(run, motions, transitions)
      : segmentWithTimeFilter(run, motions, transitions);
    const source: SegmenterName = isDistance ? 'DwellSegmentationDistFilter' : 'DwellSegmentationTimeFilter';
    for (const t of found.trips)
      trips.push({ startIndex: t.startIndex + runStart, endIndex: t.endIndex + runStart, source });
    openTripStart = found.openTripStart === undefined ? undefined : found.openTripStart + runStart;
    runStart = runEnd + 1;
  }
  return { trips, openTripStart };
}
