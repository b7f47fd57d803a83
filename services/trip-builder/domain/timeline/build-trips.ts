import { haversine, type LonLat } from '../../../../shared/geo/geo.js';
import type { LocationPoint, Observations } from '../observations.js';
import { cleanTrip, MIN_TRIP_DISTANCE_M } from '../cleaning/clean-trip.js';
import type { CleanedSection, CleanedStop, Movement, PendingUntracked, PlaceAnchor } from '../cleaning/cleaned-trip.js';
import { startAtDiaryPlace } from '../cleaning/squished-place.js';
import { ANDROID_EVIDENCE, IOS_EVIDENCE } from '../sections/motion-changes.js';
import { segmentSections, TRANSITIONS_AFTER_TRIP_S } from '../sections/segment-sections.js';
import { type SegmenterName, segmentTrips } from '../segmentation/segment-trips.js';
import { firstAfter, firstAtOrAfter, isRestartBetween } from '../segmentation/restart-checking.js';

/**
 * Untracked time: the user reappears far from the place they were last seen, yet too slowly for a trip, so the
 * phone was not tracking in between (battery dead, app killed). The new trip then starts from a fresh place
 * where it was first seen, not from the old one. Thresholds per dwell filter; the speed is a slow walk.
 */
const UNTRACKED_MIN_DISTANCE_M: Record<SegmenterName, number> = {
  DwellSegmentationTimeFilter: 2500,
  DwellSegmentationDistFilter: 1200,
};
const UNTRACKED_MAX_SPEED_MS = 3000 / 3600;
/**
 * Untracked time after which the user reappears this close (m) to where they were last seen is squished away, as
 * e-mission's `_is_squished_untracked` does (a phone rebooted at home): the diary shows them at that place all along.
 */
const SQUISHED_UNTRACKED_M = 100;

/** A trip as the diary shows it: cleaned, resampled, with its sections and the stops between them. */
export interface BuiltTrip extends Movement {
  source: SegmenterName;
  /** The raw segmentation bounds (first and last fix), which identify the trip across rebuilds. */
  rawStartTs: number;
  rawEndTs: number;
  timeZone: string;
  /** The place the user left on this trip, as the segmentation saw it: where a rebuild from this trip starts. */
  placeBefore: PlaceAnchor | undefined;
  sections: CleanedSection[];
  stops: CleanedStop[];
  /**
   * Set on a trip that begins after untracked time: the phone was not tracking between the end of the trip before
   * and this one's start (see `wasUntracked`), and the diary shows that gap as an untracked period of its own.
   */
  afterUntracked?: true;
  /**
   * Where and when the untracked period before this trip ends, when not at the trip's start: the phone reappeared
   * earlier, at a place left on trips too short to keep, and the diary shows the user at that place until this trip.
   */
  untrackedUntil?: { ts: number; loc: LonLat };
  /**
   * Set on an untracked period standing between two trips in the diary (`untrackedBetween`): never stored, no
   * sections or stops, rendered as e-mission's `analysis/confirmed_untracked`.
   */
  untracked?: true;
}

/** Where the next build of this user's timeline starts, and the place the user is at then. */
export interface ResumePoint {
  fromTs: number;
  place: PlaceAnchor | undefined;
}

export interface TimelineBuild {
  trips: BuiltTrip[];
  /**
   * Where the next build must start: the first fix of the trip still open at the end of the data, else the first
   * fix of the last trip found. A segmenter holds no state at a trip's first fix, so building again from there
   * with more data gives what one build over all the data would. Undefined when no trip was found at all.
   */
  resume: ResumePoint | undefined;
}

/**
 * Builds the trips in a window of one user's observations. `startPlace` is where the user was when the window
 * begins (the end of the trip before it), if known. The result depends only on the observations, never on how
 * they were batched: callers start a window at the first fix of a trip, where the segmenters hold no state.
 */
export function buildTrips(obs: Observations, startPlace: PlaceAnchor | undefined): TimelineBuild {
  const { locations, motions } = obs;
  const segmentation = segmentTrips(obs);
  const trips: BuiltTrip[] = [];
  let place = startPlace;
  let resume: ResumePoint | undefined;
  for (const found of segmentation.trips) {
    const points = locations.slice(found.startIndex, found.endIndex + 1);
    const first = points[0]!;
    const last = points[points.length - 1]!;
    resume = { fromTs: first.ts, place };
    const placeBefore = place;
    const afterUntracked = place !== undefined && wasUntracked(place, first, found.source, obs.transitions);
    // Untracked time this trip follows, whether its gap ends here or ended at a trip since dropped.
    const untracked = afterUntracked ? untrackedGap(place!, first) : place?.untracked;
    if (afterUntracked) place = { enterTs: first.ts, loc: first.loc };
    const tripMotions = motions.slice(firstAtOrAfter(motions, first.ts), firstAfter(motions, last.ts));
    const evidence = found.source === 'DwellSegmentationDistFilter' ? IOS_EVIDENCE : ANDROID_EVIDENCE;
    const fromPlace = place ? haversine(place.loc, last.loc) : haversine(first.loc, last.loc);
    const tripTransitions = obs.transitions.slice(
      firstAtOrAfter(obs.transitions, first.ts),
      firstAfter(obs.transitions, last.ts + TRANSITIONS_AFTER_TRIP_S),
    );
    const cuts = segmentSections(points, tripMotions, evidence, fromPlace, tripTransitions);
    const cleaned = cuts.length > 0 ? cleanTrip(points, cuts, place) : undefined;
    const trip = cleaned && toTrip(found.source, points, placeBefore, cleaned.sections, cleaned.stops);
    if (!trip || trip.distance < MIN_TRIP_DISTANCE_M) {
      // Dropped: for the diary the user never left the place before it (e-mission squishes the trip), which for
      // the first trip of all is where it started.
      const diaryLoc = place?.diaryLoc ?? place?.loc ?? first.loc;
      place = {
        enterTs: last.ts,
        loc: last.loc,
        ...(diaryLoc ? { diaryLoc } : {}),
        ...(untracked ? { untracked } : {}),
      };
      continue;
    }
    const squishedUntracked = untracked !== undefined && isSquished(untracked, trip.startLoc);
    const diaryLoc = squishedUntracked
      ? (untracked.lastSeen.diaryLoc ?? untracked.lastSeen.loc)
      : afterUntracked
        ? undefined
        : place?.diaryLoc;
    place = { enterTs: last.ts, loc: last.loc };
    if (diaryLoc) startAtDiaryPlace(cleaned.sections, diaryLoc);
    const kept = diaryLoc ? toTrip(found.source, points, placeBefore, cleaned.sections, cleaned.stops) : trip;
    trips.push(untracked && !squishedUntracked ? afterUntrackedTime(kept, untracked) : kept);
  }
  if (segmentation.openTripStart !== undefined) resume = { fromTs: locations[segmentation.openTripStart]!.ts, place };
  return { trips, resume };
}

/**
 * The untracked time between `place`, where the user was last seen, and `first`, the fix they reappeared at. A gap
 * still pending from before (only dropped trips since) makes one period with it: it ends where the phone reappeared
 * after the earlier gap if that one stands on its own (e-mission squishes each gap whose next move starts within
 * 100 m of where it began, and the next move of the earlier gap is this one), else where it reappeared now.
 */
function untrackedGap(place: PlaceAnchor, first: LocationPoint): PendingUntracked {
  const { untracked: pending, ...lastSeen } = place;
  const now = { ts: first.ts, loc: first.loc };
  if (!pending) return { lastSeen, reappeared: now };
  const earlierStands = pending.stands === true || haversine(pending.lastSeen.loc, place.loc) > SQUISHED_UNTRACKED_M;
  return earlierStands ? { lastSeen, reappeared: pending.reappeared, stands: true } : { lastSeen, reappeared: now };
}

/** e-mission's `_is_squished_untracked`: the trip after the gap sets off within 100 m of where the user was last seen. */
function isSquished(untracked: PendingUntracked, tripStart: LonLat): boolean {
  return !untracked.stands && haversine(untracked.lastSeen.loc, tripStart) <= SQUISHED_UNTRACKED_M;
}

/** A kept trip after untracked time; the period ends where the phone reappeared, when that is not the trip's start. */
function afterUntrackedTime(trip: BuiltTrip, untracked: PendingUntracked): BuiltTrip {
  const { ts, loc } = untracked.reappeared;
  const sameStart = ts === trip.startTs && haversine(loc, trip.startLoc) === 0;
  return { ...trip, afterUntracked: true, ...(sameStart ? {} : { untrackedUntil: { ts, loc } }) };
}

function wasUntracked(
  place: PlaceAnchor,
  first: LocationPoint,
  source: SegmenterName,
  transitions: Observations['transitions'],
): boolean {
  if (isRestartBetween(transitions, place.enterTs, first.ts)) return true;
  const distance = haversine(place.loc, first.loc);
  const elapsed = first.ts - place.enterTs;
  return distance >= UNTRACKED_MIN_DISTANCE_M[source] && elapsed > 0 && distance / elapsed <= UNTRACKED_MAX_SPEED_MS;
}

function toTrip(
  source: SegmenterName,
  points: LocationPoint[],
  placeBefore: PlaceAnchor | undefined,
  sections: CleanedSection[],
  stops: CleanedStop[],
): BuiltTrip {
  const first = sections[0]!;
  const last = sections[sections.length - 1]!;
  const distance = sections.reduce((s, x) => s + x.distance, 0) + stops.reduce((s, x) => s + x.distance, 0);
  return {
    source,
    rawStartTs: points[0]!.ts,
    rawEndTs: points[points.length - 1]!.ts,
    startTs: first.startTs,
    endTs: last.endTs,
    startLoc: first.startLoc,
    endLoc: last.endLoc,
    duration: last.endTs - first.startTs,
    distance,
    timeZone: points[0]!.timeZone,
    placeBefore,
    sections,
    stops,
  };
}
