import { State, Transition } from '../../../../shared/events/emission-enums.js';
import type { MotionPoint, TransitionPoint } from '../observations.js';

/** First index in a ts-sorted list whose ts is greater than `ts` (numpy searchsorted, side right). */
export function firstAfter(list: readonly { ts: number }[], ts: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.ts <= ts) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index in a ts-sorted list whose ts is at least `ts` (numpy searchsorted, side left). */
export function firstAtOrAfter(list: readonly { ts: number }[], ts: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.ts < ts) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether the phone reported any motion activity in (from, to]: if it did, a long gap is not a stop. */
export function hasMotionBetween(motions: readonly MotionPoint[], from: number, to: number): boolean {
  const i = firstAfter(motions, from);
  return i < motions.length && motions[i]!.ts <= to;
}

/**
 * Whether tracking restarted in (from, to]: tracking was stopped, the phone rebooted, or (iOS) a visit ended
 * while the state machine waited for a trip. A restart always ends the trip in progress.
 */
export function isRestartBetween(transitions: readonly TransitionPoint[], from: number, to: number): boolean {
  for (let i = firstAfter(transitions, from); i < transitions.length && transitions[i]!.ts <= to; i++) {
    if (isRestart(transitions[i]!)) return true;
  }
  return false;
}

export function isRestart(t: TransitionPoint): boolean {
  return (
    t.transition === Transition.STOP_TRACKING ||
    t.transition === Transition.BOOTED ||
    (t.state === State.WAITING_FOR_TRIP_START && t.transition === Transition.VISIT_ENDED)
  );
}

/** Whether the phone's own state machine declared the trip over after `ts`. */
export function stoppedMovingAfter(transitions: readonly TransitionPoint[], ts: number): boolean {
  for (let i = firstAfter(transitions, ts); i < transitions.length; i++) {
    if (transitions[i]!.transition === Transition.STOPPED_MOVING) return true;
  }
  return false;
}
