import { MotionType } from '../../../../shared/events/emission-enums.js';
import { haversine } from '../../../../shared/geo/geo.js';
import type { LocationPoint } from '../observations.js';
import type { SectionCut } from '../sections/segment-sections.js';
import { extrapolateStart } from './extrapolate-start.js';
import { findJumps } from './jump-smoothing.js';
import { overrideMode } from './mode-override.js';
import { type Fix, resample } from './resample.js';
import { squishStops } from './squish-stops.js';
import type { CleanedSection, CleanedStop, Movement, PlaceAnchor } from './cleaned-trip.js';

/** A trip shorter than this (m) once cleaned is GPS noise around a place, not travel. */
export const MIN_TRIP_DISTANCE_M = 100;

/**
 * Cleans one trip: drops GPS jumps from each section, pulls the first section back to the place the user left
 * (at a time extrapolated from the section's own speed), resamples every section on a 30 s clock, applies the
 * speed sanity checks to the sensed mode, and joins sections by stops, squishing those no place explains
 * (squish-stops.ts). Undefined when nothing is left.
 */
export function cleanTrip(
  points: readonly LocationPoint[],
  cuts: readonly SectionCut[],
  startPlace: PlaceAnchor | undefined,
): { sections: CleanedSection[]; stops: CleanedStop[] } | undefined {
  const sections: CleanedSection[] = [];
  cuts.forEach((cut, i) => {
    const raw = points.slice(cut.startIndex, cut.endIndex + 1);
    const jumps = findJumps(raw);
    let fixes: Fix[] = raw.filter((_, k) => !jumps.has(k)).map(toFix);
    if (fixes.length === 0) return;
    let mode = cut.mode;
    if (i === 0 && startPlace) {
      const start = extrapolateStart(fixes, startPlace, mode, toFix(points[0]!), jumps.has(0));
      fixes = start.fixes;
      if (start.markUnknown) mode = MotionType.UNKNOWN;
    }
    // The trip's end is not pulled out to its last fix when that fix was a jump: the place it would lead to is that
    // same bogus fix (e-mission's is_place_bogus at the end, always true there), so the trip ends at its last good fix.
    const track = resample(fixes);
    const startTs = fixes[0]!.ts;
    const endTs = fixes[fixes.length - 1]!.ts;
    const duration = endTs - startTs;
    sections.push({
      startTs,
      endTs,
      startLoc: fixes[0]!.loc,
      endLoc: fixes[fixes.length - 1]!.loc,
      duration,
      distance: track.distance,
      mode: overrideMode(mode, track.distance, duration, track.speeds),
      times: track.times,
      coordinates: track.coordinates,
      speeds: track.speeds,
      distances: track.distances,
    });
  });
  if (sections.length === 0) return undefined;
  const stops = sections.slice(1).map((after, i) => stopBetween(sections[i]!, after));
  squishStops(sections, stops, points);
  return { sections, stops };
}

/** The stop joining two consecutive sections of a trip: from the end of one to the start of the next. */
export function stopBetween(before: Movement, after: Movement): CleanedStop {
  return {
    enterTs: before.endTs,
    exitTs: after.startTs,
    enterLoc: before.endLoc,
    exitLoc: after.startLoc,
    duration: after.startTs - before.endTs,
    distance: haversine(before.endLoc, after.startLoc),
  };
}

function toFix(p: LocationPoint): Fix {
  return { ts: p.ts, loc: p.loc, altitude: p.altitude };
}
