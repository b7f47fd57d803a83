import { MotionType } from '../../../../shared/events/emission-enums.js';
import type { MotionPoint } from '../observations.js';

/** Which motion activities count as evidence of a mode, and how sections are read from them, per platform. */
export interface MotionEvidence {
  /** Activities at or below this confidence are ignored (Android reports 0–100; iOS low/medium/high = 50/75/100). */
  confidenceThreshold: number;
  /** A trip that moved less than this (m) from its start place with no usable motion gets no section. */
  distanceThreshold: number;
  /**
   * iOS (e-mission's `SmoothedHighConfidenceMotionWithVisitTransitions`): its activity stream is sparse and need
   * not overlap the fixes at all, so once flip-flops are merged the first mode is stretched back to the trip's
   * first fix and the last one on to its last fix; a mode then needs at least two fixes to become a section, and
   * a gap wider than a stop between two sections is given to the side the phone was closer to in time. Without
   * any usable motion, the state machine's transitions decide whether the fixes were a trip at all.
   */
  withVisitTransitions: boolean;
}

export const ANDROID_EVIDENCE: MotionEvidence = {
  confidenceThreshold: 60,
  distanceThreshold: 100,
  withVisitTransitions: false,
};
export const IOS_EVIDENCE: MotionEvidence = {
  confidenceThreshold: 49,
  distanceThreshold: 50,
  withVisitTransitions: true,
};

/** Activities that say nothing about how the user travels. */
const IGNORED_TYPES: ReadonlySet<number> = new Set([
  MotionType.TILTING,
  MotionType.UNKNOWN,
  MotionType.STILL,
  MotionType.NONE,
  MotionType.STOPPED_WHILE_IN_VEHICLE,
]);

const FOOT: ReadonlySet<number> = new Set([MotionType.ON_FOOT, MotionType.WALKING, MotionType.RUNNING]);

/** e-mission's `is_walking_type`. */
export function isFoot(type: number): boolean {
  return FOOT.has(type);
}

/** e-mission's `is_motorized`: only IN_VEHICLE, the one motorized activity a phone reports. */
export function isMotorized(type: number): boolean {
  return type === MotionType.IN_VEHICLE;
}

/**
 * An activity at a boundary between modes. `idx` is its position among the trip's high-confidence activities,
 * which flip-flop detection uses to count how many readings a mode rests on.
 */
export interface ChangeMotion {
  ts: number;
  type: number;
  confidence: number;
  idx: number;
}

/**
 * A run of one mode, from the activity that started it to the one that ended it; its mode is `start.type`.
 * Consecutive changes share their boundary object (one change's end is the next one's start), as in e-mission,
 * where merging rewrites a boundary's type through whichever change it is reached from.
 */
export interface MotionChange {
  start: ChangeMotion;
  end: ChangeMotion;
}

/** The activities above the confidence threshold that name a way of travelling, RUNNING read as WALKING. */
export function highConfidenceMotions(motions: readonly MotionPoint[], evidence: MotionEvidence): MotionPoint[] {
  return motions
    .filter((m) => m.confidence > evidence.confidenceThreshold && !IGNORED_TYPES.has(m.type))
    .map((m) => (m.type === MotionType.RUNNING ? { ...m, type: MotionType.WALKING } : m));
}

/**
 * Consecutive activities of the same type become one change (e-mission's `segment_into_motion_changes`). Where the
 * mode switches, the boundary goes where the faster mode most likely began: a phone notices a vehicle or a bike late
 * (it needs speed to tell), so going from a non-motorized mode to IN_VEHICLE, or from foot to bike, the new mode
 * starts at the previous activity (a copy of it carrying the new mode, e-mission's `get_curr_end_motion`); in every
 * other direction it starts at the current activity.
 *
 * One deliberate difference from e-mission's code as published: a mode first reported at the trip's very last
 * activity starts at that activity, so its change lasts no time and flip-flop merging hands it to the mode before.
 * The phone has stopped by then (an IN_VEHICLE reading once the bike is parked, e-mission-docs#565), so the reading
 * says nothing about the minutes before it. e-mission's own test of that ride (TestPipelineRealData,
 * testAug27TooMuchExtrapolation) demands exactly this outcome, one bike section, while `get_curr_end_motion` as
 * published would make the ride's last 90 s a vehicle section of their own: the pipeline that made the test's
 * ground truth had a rule the published code does not show. This is the narrowest rule that reproduces it; on the
 * 41 trips with e-mission output here it changes that ride only.
 */
export function toMotionChanges(motions: readonly MotionPoint[]): MotionChange[] {
  const changes: MotionChange[] = [];
  let start: ChangeMotion | undefined;
  let prev: ChangeMotion | undefined;
  motions.forEach((m, idx) => {
    const curr: ChangeMotion = { ts: m.ts, type: m.type, confidence: m.confidence, idx };
    // The first start is an activity of its own (e-mission builds it before the loop), so giving it a later
    // position below leaves the activity it was copied from, which a boundary may copy in turn, untouched.
    if (!start) start = { ...curr };
    // A start that shares its activity's timestamp takes that activity's position (e-mission does this so that
    // the first change, built before the loop, has one too).
    if (curr.ts === start.ts) start.idx = idx;
    if (curr.type !== start.type && prev) {
      const tripEnding = idx === motions.length - 1;
      const boundary =
        !tripEnding && startsAtPrevious(prev.type, curr.type)
          ? { ...prev, type: curr.type, confidence: curr.confidence }
          : curr;
      changes.push({ start, end: boundary });
      start = boundary;
    }
    prev = curr;
  });
  if (start && prev) changes.push({ start, end: prev });
  return changes;
}

function startsAtPrevious(from: number, to: number): boolean {
  if (!isMotorized(from) && isMotorized(to)) return true;
  return isFoot(from) && to === MotionType.BICYCLING;
}
