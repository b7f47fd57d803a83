import { MotionType, Transition } from '../../../../shared/events/emission-enums.js';
import { haversine } from '../../../../shared/geo/geo.js';
import type { LocationPoint, MotionPoint, TransitionPoint } from '../observations.js';
import { mergeFlipFlops } from './flip-flop.js';
import {
  type ChangeMotion,
  highConfidenceMotions,
  type MotionChange,
  type MotionEvidence,
  toMotionChanges,
} from './motion-changes.js';

/** A section of a trip: indexes into the trip's points (inclusive) and the sensed mode (MotionType). */
export interface SectionCut {
  startIndex: number;
  endIndex: number;
  mode: number;
}

/**
 * A gap wider than this (m) between two sections is a stop to squish (e-mission's `section.startStopRadius` and
 * `section.endStopRadius`, whichever is larger).
 */
export const STOP_RADIUS_M = 150;
/** A stop is given to one side only when one of its two time gaps is at least this many times the other. */
const SQUISH_GAP_RATIO = 1.5;

/**
 * Splits one trip into sections by the phone's high-confidence motion activity (e-mission's
 * `SmoothedHighConfidenceMotion` and, for iOS, `…WithVisitTransitions`). `points` are the trip's fixes,
 * `motions` every activity the phone reported during the trip, `distanceFromPlace` how far (m) the trip's end
 * lies from the place it started at, `transitions` the state machine's transitions from the trip's first fix to
 * `TRANSITIONS_AFTER_TRIP_S` after its last. Sections may share their boundary fix; the first starts at the trip's
 * first fix and the last ends at its last.
 */
export function segmentSections(
  points: readonly LocationPoint[],
  motions: readonly MotionPoint[],
  evidence: MotionEvidence,
  distanceFromPlace: number,
  transitions: readonly TransitionPoint[],
): SectionCut[] {
  if (points.length === 0) return [];
  const last = points.length - 1;
  const changes = mergeFlipFlops(toMotionChanges(highConfidenceMotions(motions, evidence)), points);
  if (changes.length === 0) {
    return isTripWithoutMotion(evidence, distanceFromPlace, transitions)
      ? [{ startIndex: 0, endIndex: last, mode: MotionType.UNKNOWN }]
      : [];
  }
  const cuts = evidence.withVisitTransitions ? iosSections(points, changes) : androidSections(points, changes);
  if (cuts.length === 0) return [];
  cuts[0]!.startIndex = 0;
  cuts[cuts.length - 1]!.endIndex = last;
  return cuts;
}

/**
 * A short trip's visit-ended transition can come after its last fix (e-mission saw one a minute late on an iPhone),
 * so the transitions that vouch for a trip without motion are read this long (s) past its end.
 */
export const TRANSITIONS_AFTER_TRIP_S = 5 * 60;

/**
 * With no usable motion, whether the fixes still make a trip (of a mode nobody can tell). Android: if it ended far
 * enough from where it began. iOS (e-mission's `get_section_if_applicable`): only if the state machine moved at all
 * (an iPhone without a single transition around the "trip" was not tracking one: its fixes are drift), and then if
 * it ended far enough away or it ended a visit.
 */
function isTripWithoutMotion(
  evidence: MotionEvidence,
  distanceFromPlace: number,
  transitions: readonly TransitionPoint[],
): boolean {
  const farEnough = distanceFromPlace > evidence.distanceThreshold;
  if (!evidence.withVisitTransitions) return farEnough;
  if (transitions.length === 0) return false;
  return farEnough || transitions.some((t) => t.transition === Transition.VISIT_ENDED);
}

/**
 * Android: each change becomes a section over the fixes inside it, if it holds any. If none holds a fix, a
 * single change whose end still names its own mode becomes one section over the whole trip.
 */
function androidSections(points: readonly LocationPoint[], changes: readonly MotionChange[]): SectionCut[] {
  const cuts: SectionCut[] = [];
  for (const c of changes) {
    const range = indexRange(points, c.start.ts, c.end.ts);
    if (range) cuts.push({ ...range, mode: c.start.type });
  }
  if (cuts.length === 0 && changes.length === 1 && changes[0]!.start.type === changes[0]!.end.type) {
    cuts.push({ startIndex: 0, endIndex: points.length - 1, mode: changes[0]!.start.type });
  }
  return cuts;
}

/**
 * iOS reports activities late and sparsely, and they may not overlap the fixes at all: the first change is
 * stretched back to the trip's first fix and the last on to its last fix, and a change needs two fixes to be a
 * section. Then a wide gap between two sections is squished (`squish_stops`).
 */
function iosSections(points: readonly LocationPoint[], merged: readonly MotionChange[]): SectionCut[] {
  const changes = [...merged];
  const stretched = (m: ChangeMotion, ts: number): ChangeMotion => ({ ...m, ts });
  changes[0] = { start: stretched(changes[0]!.start, points[0]!.ts), end: changes[0]!.end };
  const lastChange = changes[changes.length - 1]!;
  changes[changes.length - 1] = { start: lastChange.start, end: stretched(lastChange.end, points.at(-1)!.ts) };
  const cuts: SectionCut[] = [];
  for (const c of changes) {
    const range = indexRange(points, c.start.ts, c.end.ts);
    if (range && range.endIndex > range.startIndex) cuts.push({ ...range, mode: c.start.type });
  }
  squishStops(points, changes, cuts);
  return cuts;
}

/**
 * Where two sections are far apart (a stop wider than the stop radius), the phone saw the mode change at the
 * boundary between their changes; the gap goes to the section whose fix lay closer in time to that boundary,
 * unless the two are close to even. As in e-mission, sections and changes are paired by position, which is
 * exact when every change became a section.
 */
function squishStops(points: readonly LocationPoint[], changes: readonly MotionChange[], cuts: SectionCut[]): void {
  for (let i = 0; i + 1 < cuts.length; i++) {
    const first = cuts[i]!;
    const second = cuts[i + 1]!;
    const firstEnd = points[first.endIndex]!;
    const secondStart = points[second.startIndex]!;
    if (!(haversine(firstEnd.loc, secondStart.loc) > STOP_RADIUS_M)) continue;
    const boundary = changes[i]?.end.ts;
    const nextStart = changes[i + 1]?.start.ts;
    if (boundary === undefined || nextStart === undefined) continue;
    const startGap = boundary - firstEnd.ts;
    const endGap = secondStart.ts - nextStart;
    const ratio = Math.max(startGap, endGap) / Math.min(startGap, endGap);
    if (!(ratio >= SQUISH_GAP_RATIO)) continue;
    if (startGap < endGap) second.startIndex = first.endIndex;
    else first.endIndex = second.startIndex;
  }
}

/** The first and last index of the fixes with ts in [from, to], if any. */
function indexRange(
  points: readonly LocationPoint[],
  from: number,
  to: number,
): { startIndex: number; endIndex: number } | undefined {
  let startIndex = -1;
  let endIndex = -1;
  points.forEach((p, i) => {
    if (p.ts < from || p.ts > to) return;
    if (startIndex < 0) startIndex = i;
    endIndex = i;
  });
  return startIndex < 0 ? undefined : { startIndex, endIndex };
}
