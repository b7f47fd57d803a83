/** A trip found by a segmenter: indexes of its first and last fix in the location list it was given, inclusive. */
export interface SegmentationPoint {
  startIndex: number;
  endIndex: number;
}

export interface Segmentation {
  trips: SegmentationPoint[];
  /** Index of the first point of the trip still open at the end of data, if any. */
  openTripStart: number | undefined;
}
