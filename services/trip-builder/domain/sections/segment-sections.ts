import { MotionType } from '../../../../shared/events/emission-enums.js';
import { haversine, median } from '../geo.js';
import type { LocationPoint, MotionPoint } from '../observations.js';
import { mergeFlipFlops, type ModeSpan } from './flip-flop.js';
import { highConfidenceMotions, type MotionEvidence, toMotionChanges } from './motion-changes.js';

/** A section of a trip: indexes into the trip's points (inclusive) and the sensed mode (MotionType). */
export interface SectionCut {
  startIndex: number;
  endIndex: number;
  mode: number;
}

/**
 * Splits one trip into sections by the phone's high-confidence motion activity. `points` are the trip's fixes,
 * `motions` every activity the phone reported during the trip, `distanceFromPlace` how far (m) the trip's end
 * lies from the place it started at.
 */
export function segmentSections(
  points: readonly LocationPoint[],
  motions: readonly MotionPoint[],
  evidence: MotionEvidence,
  distanceFromPlace: number,
): SectionCut[] {
  if (points.length === 0) return [];
  const last = points.length - 1;
  const changes = toMotionChanges(highConfidenceMotions(motions, evidence));
  if (changes.length === 0) {
    // No usable motion: a trip that went somewhere is still a trip, of a mode we cannot tell.
    return distanceFromPlace > evidence.distanceThreshold
      ? [{ startIndex: 0, endIndex: last, mode: MotionType.UNKNOWN }]
      : [];
  }
  if (changes.length === 1) return [{ startIndex: 0, endIndex: last, mode: changes[0]!.type }];

  const spans: ModeSpan[] = changes.map((c) => {
    const inside = indexesBetween(points, c.start.ts, c.end.ts);
    return {
      type: c.type,
      startTs: c.start.ts,
      endTs: c.end.ts,
      medianSpeed: medianSpeed(points, inside),
      pointCount: inside.length,
    };
  });
  if (evidence.stretchToTripEnds) stretchToTripEnds(spans, points);
  const merged = mergeFlipFlops(spans, points[last]!.ts - points[0]!.ts);

  const cuts: SectionCut[] = [];
  for (const span of merged) {
    const inside = indexesBetween(points, span.startTs, span.endTs);
    if (inside.length === 0) continue;
    // Sections never share a fix: the gap between two sections is the stop where the mode changed.
    const startIndex = Math.max(inside[0]!, cuts.length > 0 ? cuts[cuts.length - 1]!.endIndex + 1 : 0);
    const endIndex = inside[inside.length - 1]!;
    if (endIndex <= startIndex) continue;
    cuts.push({ startIndex, endIndex, mode: span.type });
  }
  if (cuts.length === 0) return [{ startIndex: 0, endIndex: last, mode: merged[0]!.type }];
  // The trip's first and last fixes belong to its first and last sections.
  cuts[0]!.startIndex = 0;
  cuts[cuts.length - 1]!.endIndex = last;
  return cuts;
}

function stretchToTripEnds(spans: ModeSpan[], points: readonly LocationPoint[]): void {
  const first = spans[0]!;
  const last = spans[spans.length - 1]!;
  first.startTs = Math.min(first.startTs, points[0]!.ts);
  last.endTs = Math.max(last.endTs, points[points.length - 1]!.ts);
  for (const span of [first, last]) {
    const inside = indexesBetween(points, span.startTs, span.endTs);
    span.medianSpeed = medianSpeed(points, inside);
    span.pointCount = inside.length;
  }
}

function indexesBetween(points: readonly LocationPoint[], from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < points.length; i++) if (points[i]!.ts >= from && points[i]!.ts <= to) out.push(i);
  return out;
}

function medianSpeed(points: readonly LocationPoint[], indexes: readonly number[]): number {
  const speeds: number[] = [];
  for (let k = 1; k < indexes.length; k++) {
    const a = points[indexes[k - 1]!]!;
    const b = points[indexes[k]!]!;
    if (b.ts > a.ts) speeds.push(haversine(a.loc, b.loc) / (b.ts - a.ts));
  }
  return speeds.length > 0 ? median(speeds) : NaN;
}
