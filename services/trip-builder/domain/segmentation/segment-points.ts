/**
 * A trip found by a segmenter: indexes into the location list it was given, inclusive. `lastProcessedIndex` is the
 * last point whose fate is final; points after it belong to a trip still open at the end of the data.
 */
export interface SegmentationPoint {
  startIndex: number;
  endIndex: number;
}

export interface Segmentation {
  trips: SegmentationPoint[];
  /** Index of the first point of the trip still open at the end of data, if any. */
  openTripStart: number | undefined;
}
