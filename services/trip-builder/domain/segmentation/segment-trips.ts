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
 * A fix written this long (s) after it was taken was held back by the phone (a cached fix, a clock being set):
 * e-mission's time filter leaves such fixes out when it looks for trip ends (`metadata_write_ts - ts < 1000`),
 * since a burst of old fixes arriving together would look like a dwell. They still belong to the trip or place
 * their time falls in.
 */
export const LATE_WRITE_S = 1000;

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
    // Positions in `run` of the fixes the segmenter sees: all of them, or for the time filter the timely ones.
    const seen = run.flatMap((p, k) => (isDistance || p.writeTs - p.ts < LATE_WRITE_S ? [k] : []));
    const given = seen.map((k) => run[k]!);
    const found = isDistance
      ? segmentWithDistanceFilter(given, motions, transitions)
      : segmentWithTimeFilter(given, motions, transitions);
    const source: SegmenterName = isDistance ? 'DwellSegmentationDistFilter' : 'DwellSegmentationTimeFilter';
    const toLocation = (k: number) => seen[k]! + runStart;
    for (const t of found.trips)
      trips.push({ startIndex: toLocation(t.startIndex), endIndex: toLocation(t.endIndex), source });
    openTripStart = found.openTripStart === undefined ? undefined : toLocation(found.openTripStart);
    runStart = runEnd + 1;
  }
  return { trips, openTripStart };
}
