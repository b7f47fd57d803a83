import { MotionType } from '../../../../shared/events/emission-enums.js';
import { isFoot, MOTORIZED } from './motion-changes.js';

/**
 * Domain assumptions (e-mission's `domain_assumptions.py`): how fast people walk and cycle, and how short a ride
 * can be before it is more likely a misreading of the phone's activity recogniser than a real change of mode.
 */
export const WALKING_SPEED_MAX_MS = 1.7;
export const BICYCLING_SPEED_MAX_MS = 8.5;
/** A bike ride shorter than this (s) is a misreading (a jog across the road, a bumpy bus). */
export const BIKE_TOO_SHORT_S = 60;
/** A vehicle ride shorter than this (s) is a misreading (a fast walk downhill, a stop-and-go bike). */
export const MOTORIZED_TOO_SHORT_S = 5 * 60;
/** A walk shorter than this (s) between two rides is the phone hesitating, not a transfer. */
export const WALK_TOO_SHORT_S = 60;
/** A change covering more than this share of the trip's time is real, whatever its speed. */
export const BIG_CHANGE_SHARE = 0.25;

/** A candidate section: a mode over a time span, with the median speed of the fixes inside it. */
export interface ModeSpan {
  type: number;
  startTs: number;
  endTs: number;
  /** Median speed (m/s) of the trip's fixes in the span; NaN when it holds fewer than two. */
  medianSpeed: number;
  pointCount: number;
}

function minimumDuration(type: number): number {
  if (MOTORIZED.has(type)) return MOTORIZED_TOO_SHORT_S;
  if (type === MotionType.BICYCLING) return BIKE_TOO_SHORT_S;
  return WALK_TOO_SHORT_S;
}

/** The mode a speed suggests, used to pick which neighbour a dubious span belongs to. */
function plausibleFor(type: number, speed: number): boolean {
  if (!Number.isFinite(speed)) return true;
  if (isFoot(type)) return speed <= WALKING_SPEED_MAX_MS;
  if (type === MotionType.BICYCLING) return speed <= BICYCLING_SPEED_MAX_MS;
  return true;
}

/**
 * Merges flip-flops: spans too short for their mode (and not a big part of the trip), or whose fixes move at a
 * speed the mode cannot reach, are absorbed by a neighbour, the shortest first, until every span stands. A
 * dubious span joins the neighbour whose mode its speed fits; when both or neither fit, the longer neighbour.
 */
export function mergeFlipFlops(spans: readonly ModeSpan[], tripDuration: number): ModeSpan[] {
  let list = coalesce(spans);
  for (;;) {
    const dubious = list
      .map((s, i) => ({ s, i }))
      .filter(({ s, i }) => list.length > 1 && isDubious(s, tripDuration, i > 0 && i < list.length - 1))
      .sort((a, b) => duration(a.s) - duration(b.s));
    const first = dubious[0];
    if (!first) return list;
    const { s, i } = first;
    const before = list[i - 1];
    const after = list[i + 1];
    let target: number;
    if (!before) target = i + 1;
    else if (!after) target = i - 1;
    else {
      const fitsBefore = plausibleFor(before.type, s.medianSpeed);
      const fitsAfter = plausibleFor(after.type, s.medianSpeed);
      if (fitsBefore !== fitsAfter) target = fitsBefore ? i - 1 : i + 1;
      else target = duration(before) >= duration(after) ? i - 1 : i + 1;
    }
    const into = list[target]!;
    const merged: ModeSpan = {
      type: into.type,
      startTs: Math.min(into.startTs, s.startTs),
      endTs: Math.max(into.endTs, s.endTs),
      medianSpeed: into.medianSpeed,
      pointCount: into.pointCount + s.pointCount,
    };
    const next = [...list];
    next.splice(Math.min(i, target), 2, merged);
    list = coalesce(next);
  }
}

function duration(s: ModeSpan): number {
  return s.endTs - s.startTs;
}

/**
 * A short walk at either end of a trip is the walk to or from the vehicle, so it stands; only a short walk
 * between two rides is suspect.
 */
function isDubious(s: ModeSpan, tripDuration: number, between: boolean): boolean {
  const big = tripDuration > 0 && duration(s) > BIG_CHANGE_SHARE * tripDuration;
  if (big) return false;
  const tooShort = duration(s) < minimumDuration(s.type) && (between || !isFoot(s.type));
  return tooShort || !plausibleFor(s.type, s.medianSpeed);
}

/** Neighbouring spans of the same mode are one span. */
function coalesce(spans: readonly ModeSpan[]): ModeSpan[] {
  const out: ModeSpan[] = [];
  for (const s of spans) {
    const last = out[out.length - 1];
    if (last && last.type === s.type) {
      out[out.length - 1] = {
        ...last,
        endTs: Math.max(last.endTs, s.endTs),
        pointCount: last.pointCount + s.pointCount,
      };
    } else out.push({ ...s });
  }
  return out;
}
