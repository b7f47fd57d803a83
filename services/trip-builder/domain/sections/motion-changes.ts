import { MotionType } from '../../../../shared/events/emission-enums.js';
import type { MotionPoint } from '../observations.js';

/** Which motion activities count as evidence of a mode, per phone platform. */
export interface MotionEvidence {
  /** Activities at or below this confidence are ignored (Android reports 0–100; iOS low/medium/high = 50/75/100). */
  confidenceThreshold: number;
  /** A trip that moved less than this (m) from its start place with no usable motion gets no section. */
  distanceThreshold: number;
  /**
   * iOS reports activity changes late and sparsely, and its fixes come only on movement: its first and last modes
   * are stretched to the trip's ends before judging them. Android's dense activity stream needs no stretching.
   */
  stretchToTripEnds: boolean;
}

export const ANDROID_EVIDENCE: MotionEvidence = {
  confidenceThreshold: 60,
  distanceThreshold: 100,
  stretchToTripEnds: false,
};
export const IOS_EVIDENCE: MotionEvidence = { confidenceThreshold: 49, distanceThreshold: 50, stretchToTripEnds: true };

/** Activities that say nothing about how the user travels. */
const IGNORED_TYPES: ReadonlySet<number> = new Set([
  MotionType.TILTING,
  MotionType.UNKNOWN,
  MotionType.STILL,
  MotionType.NONE,
  MotionType.STOPPED_WHILE_IN_VEHICLE,
]);

export const MOTORIZED: ReadonlySet<number> = new Set([MotionType.IN_VEHICLE, MotionType.AIR_OR_HSR]);
const FOOT: ReadonlySet<number> = new Set([MotionType.ON_FOOT, MotionType.WALKING, MotionType.RUNNING]);

export function isFoot(type: number): boolean {
  return FOOT.has(type);
}

/** A run of one motion type, from the activity that started it to the one that ended it. */
export interface MotionChange {
  start: MotionPoint;
  end: MotionPoint;
  type: number;
}

export function highConfidenceMotions(motions: readonly MotionPoint[], evidence: MotionEvidence): MotionPoint[] {
  return motions
    .filter((m) => m.confidence > evidence.confidenceThreshold && !IGNORED_TYPES.has(m.type))
    .map((m) => (m.type === MotionType.RUNNING ? { ...m, type: MotionType.WALKING } : m));
}

/**
 * Consecutive activities of the same type become one change. Where the mode switches, the boundary is placed so
 * that the faster mode gets the contested interval's start: a phone notices a vehicle late (it needs speed to
 * tell), so when going from foot to vehicle or from walking to cycling the new mode began at the previous
 * activity already; in every other direction it begins at the current one.
 */
export function toMotionChanges(motions: readonly MotionPoint[]): MotionChange[] {
  const changes: MotionChange[] = [];
  let start: MotionPoint | undefined;
  let prev: MotionPoint | undefined;
  for (const curr of motions) {
    if (!start) start = curr;
    if (prev && prev.type !== curr.type) {
      const boundary = startsEarly(prev.type, curr.type)
        ? { ...prev, type: curr.type, confidence: curr.confidence }
        : curr;
      changes.push({ start, end: startsEarly(prev.type, curr.type) ? prev : boundary, type: start.type });
      start = boundary;
    }
    prev = curr;
  }
  if (start && prev) changes.push({ start, end: prev, type: start.type });
  return changes;
}

function startsEarly(from: number, to: number): boolean {
  const fromMotorized = MOTORIZED.has(from);
  const toMotorized = MOTORIZED.has(to);
  if (!fromMotorized && toMotorized) return true;
  return isFoot(from) && to === MotionType.BICYCLING;
}
