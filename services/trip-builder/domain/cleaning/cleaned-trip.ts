import type { LonLat } from '../../../../shared/geo/geo.js';
import type { PredictedModeName } from '../../../../shared/events/emission-enums.js';

/**
 * What cleaning makes of a trip, and what a trip starts from: the shapes the cleaning steps pass to each other,
 * kept apart from the steps so that none of them imports another only for a type.
 */

/** Where and when a movement (a section, a trip, an untracked period) starts and ends, and how long and far it is. */
export interface Movement {
  startTs: number;
  endTs: number;
  startLoc: LonLat;
  endLoc: LonLat;
  duration: number;
  distance: number;
}

export interface CleanedSection extends Movement {
  /** The sensed mode (MotionTypes number) the section was cut by. */
  mode: number;
  /**
   * The mode e-mission's rule engine infers from it (domain/modes), set once the trip is built; absent on trips
   * stored before modes were inferred (see predictedModeOf).
   */
  predictedMode?: PredictedModeName;
  times: number[];
  coordinates: [number, number][];
  speeds: number[];
  distances: number[];
}

export interface CleanedStop {
  enterTs: number;
  exitTs: number;
  enterLoc: LonLat;
  exitLoc: LonLat;
  duration: number;
  distance: number;
}

/** Where the user was before a trip: the place the previous trip ended at. */
export interface PlaceAnchor {
  enterTs: number;
  loc: LonLat;
  /**
   * Where the diary's place is, when it is not `loc`: trips since the last one kept were dropped (too short, no
   * section), so the diary shows the user still at the end of that kept trip (see squished-place.ts).
   */
  diaryLoc?: LonLat;
  /**
   * Untracked time that no kept trip has followed yet: the trips since it were dropped, so its period still stands
   * before the next kept trip (or is squished, if that trip sets off within 100 m of where the user was last seen).
   * Absent in anchors stored before it existed, which read as no untracked time pending.
   */
  untracked?: PendingUntracked;
}

/** Untracked time waiting for the next kept trip (see `PlaceAnchor.untracked`). */
export interface PendingUntracked {
  /** Where the user was last seen before the latest gap in tracking. */
  lastSeen: Omit<PlaceAnchor, 'untracked'>;
  /** Where and when the phone was seen again after the gap the diary shows: where the untracked period ends. */
  reappeared: { ts: number; loc: LonLat };
  /**
   * Set when an earlier gap, before the dropped trips, already stands on its own (the user reappeared more than
   * 100 m from where they had been): the period is shown whatever the next kept trip does.
   */
  stands?: true;
}
