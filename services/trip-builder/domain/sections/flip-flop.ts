import { MotionType } from '../../../../shared/events/emission-enums.js';
import { haversine, median } from '../../../../shared/geo/geo.js';
import type { LocationPoint } from '../observations.js';
import { type ChangeMotion, isFoot, isMotorized, type MotionChange } from './motion-changes.js';

/**
 * Domain assumptions (e-mission's `domain_assumptions.py`): how fast people walk and cycle, how long a ride has
 * to last before it is believed, and when a run of flip-flops is a mode of its own.
 */
export const WALKING_SPEED_MAX_MS = 1.7;
export const BICYCLING_SPEED_MAX_MS = 8.5;
/** Nobody rides a bike for less than a minute and then switches to another mode. */
export const BIKE_TOO_SHORT_S = 60;
/** Nobody takes a vehicle for less than five minutes and then switches to another mode. */
export const MOTORIZED_TOO_SHORT_S = 5 * 60;
/** A gap shorter than this between a bike reading and a vehicle reading is one ride seen two ways. */
export const BIKE_VEHICLE_TRANSITION_TOO_SHORT_S = 60;
/** A change covering more than this percentage of the motion span is real, whatever else is said of it. */
export const BIG_CHANGE_PCT = 25;
/** A streak of more flip-flops than this (end index minus start index) is one section of its own. */
const NEW_SECTION_STREAK = 3;
/** A bike seen this briefly next to a vehicle is a fast biker if it lasts this share of the vehicle's time. */
const FAST_BIKER_RATIO = 0.75;

const isWalkingSpeed = (speed: number) => !(speed > WALKING_SPEED_MAX_MS);
const isBicyclingSpeed = (speed: number) => !(speed > BICYCLING_SPEED_MAX_MS);

/** How a streak of flip-flops is resolved: absorbed by the change before it, after it, or made a new section. */
type Direction = 'forward' | 'backward' | 'new';
/** Whose mode survives a merge: the absorbing change's (most cases) or the streak's (the fast biker). */
type FinalMode = 'unmerged' | 'merged';
type Merge = { direction: Direction; finalMode: FinalMode } | undefined;
export interface MergeAction {
  start: number;
  end: number;
  direction: Direction;
  finalMode: FinalMode;
}

/**
 * Merges flip-flops (e-mission's `FlipFlopDetection.merge_flip_flop_sections`): the phone's activity recogniser
 * often wavers for a reading or two, and every waver would otherwise be a section. Each change is judged on its
 * own first, then runs of dubious changes ("streaks") are each resolved as a whole against their neighbours, and
 * finally neighbours left with the same mode are joined. `points` are the trip's fixes, used for speeds.
 * The changes given are not modified; their boundaries' sharing is kept in the copies merged.
 */
export function mergeFlipFlops(input: readonly MotionChange[], points: readonly LocationPoint[]): MotionChange[] {
  if (input.length === 0) return [];
  const changes = copyChanges(input);
  const ctx = new FlipFlops(changes, points);
  const flags = changes.map((_, i) => ctx.isFlipFlop(i));
  const actions: MergeAction[] = [];
  for (const [start, end] of streaks(flags)) {
    const merge = ctx.shouldMerge(start, end);
    // A lone change flagged as a flip-flop has no neighbour to merge into (e-mission fails the user's whole
    // sectioning there, with an index error); it stays as it is.
    if (merge && (merge.direction !== 'backward' || end + 1 < changes.length)) actions.push({ start, end, ...merge });
  }
  return joinSameModes(applyMerges(changes, actions));
}

/** Copies the changes, keeping one copy per boundary object so the copies share boundaries as the originals do. */
function copyChanges(input: readonly MotionChange[]): MotionChange[] {
  const copies = new Map<ChangeMotion, ChangeMotion>();
  const copy = (m: ChangeMotion) => copies.get(m) ?? copies.set(m, { ...m }).get(m)!;
  return input.map((c) => ({ start: copy(c.start), end: copy(c.end) }));
}

/**
 * The runs of consecutive flip-flops, as [first, last] change indexes. As in e-mission, a run reaching the last
 * change stops one short of it (the last change is never merged away: there is nothing after it to absorb it),
 * which leaves a lone final flip-flop as an empty run that resolves to no merge.
 */
export function streaks(flags: readonly boolean[]): [number, number][] {
  const out: [number, number][] = [];
  let start = 0;
  flags.forEach((flipFlop, i) => {
    if (flipFlop) return;
    if (i !== start) out.push([start, i - 1]);
    start = i + 1;
  });
  const last = flags.length - 1;
  if (last < 0) return out;
  // A list of one or two changes ending in a flip-flop: that last change is a streak of its own.
  if (last <= 1 && flags[last]) out.push([last, last]);
  else if (last !== start - 1) out.push([start, flags.length - 2]);
  return out;
}

class FlipFlops {
  private readonly tripPct: number[];

  constructor(
    private readonly changes: readonly MotionChange[],
    private readonly points: readonly LocationPoint[],
  ) {
    // Shares of the span from the first change's start to the last change's end (not of the trip's fixes): a
    // single reading has no span, and then no change is big.
    const span = changes[changes.length - 1]!.end.ts - changes[0]!.start.ts;
    this.tripPct = changes.map((c) => (span > 0 ? ((c.end.ts - c.start.ts) * 100) / span : 0));
  }

  /**
   * A change is dubious unless it covers a big part of the span: when it rests on one reading (two for a bike or
   * a vehicle, which need speed to be recognised), fails the sanity checks for its mode, or holds no fix at all.
   */
  isFlipFlop(i: number): boolean {
    if (this.tripPct[i]! > BIG_CHANGE_PCT) return false;
    const { start, end } = this.changes[i]!;
    const idxDiff = end.idx - start.idx;
    if (idxDiff <= 1) return true;
    if (!isFoot(start.type) && idxDiff <= 2) return true;
    if (!this.isValidForType(this.changes[i]!)) return true;
    return this.pointsIn(start, end).length === 0;
  }

  /**
   * A single flip-flop (a run of one or two) goes if it is the fast biker's misreading, if it is anything but a
   * walk (only a walk is a plausible brief mode between two others), or if it is a walk with at most one fix. A
   * longer run is most likely a bike ride the recogniser could not settle on; a middling one goes when any of
   * its changes fails the sanity checks for its mode.
   */
  shouldMerge(start: number, end: number): Merge {
    if (start === end || start + 1 === end) {
      return this.fastBiker(start, end) ?? this.nonWalkingSingle(start, end) ?? this.walkWithoutFixes(start, end);
    }
    if (end - start > NEW_SECTION_STREAK) return { direction: 'new', finalMode: 'merged' };
    for (let i = start; i <= end; i++) {
      if (!this.isValidForType(this.changes[i]!)) return this.mergeDirection(start, end);
    }
    return undefined;
  }

  /**
   * A very fast biker is read as IN_VEHICLE: a bike change on one reading followed at once (within a minute) by
   * a short vehicle change is the bike ride, and the vehicle part joins it. The ratio stands in for the big-change
   * test, since the vehicle change being removed need not be a flip-flop itself.
   */
  private fastBiker(start: number, end: number): Merge {
    const after = this.changes[end + 1];
    if (!after) return undefined;
    const first = this.changes[start]!;
    const last = this.changes[end]!;
    const bikeIdxDiff = last.start.idx - first.start.idx;
    const vehicleIdxDiff = after.end.idx - after.start.idx;
    const shortTransition = last.start.ts - first.end.ts < BIKE_VEHICLE_TRANSITION_TOO_SHORT_S;
    const ratio = (last.start.ts - first.start.ts) / (after.end.ts - after.start.ts + 1);
    const fast =
      first.start.type === MotionType.BICYCLING &&
      after.start.type === MotionType.IN_VEHICLE &&
      bikeIdxDiff <= 1 &&
      vehicleIdxDiff <= 2 &&
      shortTransition &&
      (bikeIdxDiff === 0 || ratio > FAST_BIKER_RATIO);
    return fast ? { direction: 'backward', finalMode: 'merged' } : undefined;
  }

  private nonWalkingSingle(start: number, end: number): Merge {
    return isFoot(this.changes[start]!.start.type) ? undefined : this.mergeDirection(start, end);
  }

  private walkWithoutFixes(start: number, end: number): Merge {
    const { start: s, end: e } = this.changes[start]!;
    return this.pointsIn(s, e).length <= 1 ? this.mergeDirection(start, end) : undefined;
  }

  /**
   * Which neighbour absorbs a streak: the only one there is at either end; none for a transit transfer; either
   * when both have the same mode; never a walk if the streak moves faster than walking; else the one whose median
   * speed is closer.
   */
  private mergeDirection(start: number, end: number): Merge {
    const backward: Merge = { direction: 'backward', finalMode: 'unmerged' };
    const forward: Merge = { direction: 'forward', finalMode: 'unmerged' };
    if (start === 0) return backward;
    const before = this.changes[start - 1]!;
    const after = this.changes[end + 1];
    if (!after) return forward;
    // A walk between two vehicle rides is a transfer, however short: it stands.
    if (isMotorized(before.start.type) && isFoot(this.changes[start]!.start.type) && isMotorized(after.start.type)) {
      return undefined;
    }
    if (before.start.type === after.start.type) return forward;
    const inside = this.pointsIn(this.changes[start]!.start, this.changes[end]!.end);
    const pointsBefore = this.pointsIn(before.start, before.end);
    const pointsAfter = this.pointsIn(after.start, after.end);
    const speed = streakSpeed(inside, pointsBefore, pointsAfter);
    if (isFoot(after.start.type) && !isWalkingSpeed(speed)) return forward;
    if (isFoot(before.start.type) && !isWalkingSpeed(speed)) return backward;
    const toBefore = Math.abs(speed - neighbourSpeed(pointsBefore));
    const toAfter = Math.abs(speed - neighbourSpeed(pointsAfter));
    return toBefore < toAfter ? forward : backward;
  }

  /** e-mission's `is_valid_for_type`: walks at walking speed, bikes for a minute at cycling speed, vehicles for five. */
  private isValidForType({ start, end }: MotionChange): boolean {
    const duration = end.ts - start.ts;
    if (isFoot(start.type)) return isWalkingSpeed(this.medianSpeedIn(start, end));
    if (start.type === MotionType.BICYCLING) {
      return duration >= BIKE_TOO_SHORT_S && isBicyclingSpeed(this.medianSpeedIn(start, end));
    }
    if (start.type === MotionType.IN_VEHICLE) return duration >= MOTORIZED_TOO_SHORT_S;
    return true;
  }

  /** Median speed of the fixes in a change; NaN (which passes every speed test) when it holds none. */
  private medianSpeedIn(start: ChangeMotion, end: ChangeMotion): number {
    return medianSpeed(this.pointsIn(start, end));
  }

  private pointsIn(start: ChangeMotion, end: ChangeMotion): LocationPoint[] {
    return this.points.filter((p) => p.ts >= start.ts && p.ts <= end.ts);
  }
}

/**
 * A streak's own median speed; with fewer than two fixes, the speed from the last fix before it to the first
 * after it; with neither, 0.
 */
function streakSpeed(
  inside: readonly LocationPoint[],
  before: readonly LocationPoint[],
  after: readonly LocationPoint[],
): number {
  if (inside.length > 1) return medianSpeed(inside);
  const last = before[before.length - 1];
  const first = after[0];
  if (last && first) return haversine(last.loc, first.loc) / (first.ts - last.ts);
  return 0;
}

/**
 * A neighbour's median speed when choosing where a streak goes: 0 for a neighbour without fixes (e-mission's
 * speed frame always holds the leading 0, even for no fixes), so a subway ride without GPS can still take a streak.
 */
function neighbourSpeed(points: readonly LocationPoint[]): number {
  return points.length === 0 ? 0 : medianSpeed(points);
}

/**
 * Median of the speeds from each fix to the next, the first fix counting as 0 (e-mission's
 * `add_dist_heading_speed`, and a step of no time as 0); NaN without fixes.
 */
export function medianSpeed(points: readonly LocationPoint[]): number {
  if (points.length === 0) return NaN;
  const speeds = [0];
  for (let i = 1; i < points.length; i++) {
    const dt = points[i]!.ts - points[i - 1]!.ts;
    speeds.push(dt === 0 ? 0 : haversine(points[i - 1]!.loc, points[i]!.loc) / dt);
  }
  return median(speeds);
}

/**
 * Applies the merges (e-mission's `merge_streaks_pass_1`). Each slot holds a reference to the change that now
 * covers it, so that a change absorbing one streak forward and another backward ends up covering both: all
 * forward merges first, then backward ones, then new sections, as e-mission orders them.
 */
export function applyMerges(changes: readonly MotionChange[], actions: readonly MergeAction[]): MotionChange[] {
  const slots = changes.map((c) => ({ start: c.start, end: c.end }));
  const cover = (from: number, to: number, by: MotionChange) => {
    for (let i = from; i <= to; i++) slots[i] = by;
  };
  for (const a of actions.filter((x) => x.direction === 'forward')) {
    const kept = slots[a.start - 1]!;
    kept.end = slots[a.end]!.end;
    if (a.finalMode === 'merged') kept.start.type = slots[a.start]!.start.type;
    cover(a.start, a.end, kept);
  }
  for (const a of actions.filter((x) => x.direction === 'backward')) {
    const kept = slots[a.end + 1]!;
    // The start motion carries the mode, and the kept change takes the streak's start.
    if (a.finalMode === 'unmerged') slots[a.start]!.start.type = kept.start.type;
    kept.start = slots[a.start]!.start;
    cover(a.start, a.end, kept);
  }
  for (const a of actions.filter((x) => x.direction === 'new')) {
    const made: MotionChange = { start: slots[a.start]!.start, end: slots[a.end]!.end };
    made.start.type = MotionType.BICYCLING;
    cover(a.start, a.end, made);
  }
  return slots.filter((c, i) => slots.indexOf(c) === i);
}

/** Joins neighbouring changes of the same mode (e-mission's `merge_streaks_pass_2`). */
export function joinSameModes(changes: readonly MotionChange[]): MotionChange[] {
  const out: MotionChange[] = [];
  for (const c of changes) {
    const last = out[out.length - 1];
    if (last && last.start.type === c.start.type) out[out.length - 1] = { start: last.start, end: c.end };
    else out.push(c);
  }
  return out;
}
