import type { LonLat } from '../../../../shared/geo/geo.js';
import type { CleanedSection } from './cleaned-trip.js';

/** A step added to a section's track: how far it goes and how fast. */
export interface Step {
  distance: number;
  speed: number;
}

/** The section now ends at `ts`/`loc`, one step further: its track gains that point, its distance the step's. */
export function extendEnd(section: CleanedSection, ts: number, loc: LonLat, step: Step): void {
  section.endTs = ts;
  section.endLoc = loc;
  section.times.push(ts);
  section.coordinates.push([loc[0], loc[1]]);
  section.distances.push(step.distance);
  section.speeds.push(step.speed);
  grow(section, step);
}

/**
 * The section now starts at `ts`/`loc`, one step earlier. A track's first point has no step before it (distance
 * and speed 0), so the new first point gets those and the old first point the step's.
 */
export function extendStart(section: CleanedSection, ts: number, loc: LonLat, step: Step): void {
  section.startTs = ts;
  section.startLoc = loc;
  section.times.unshift(ts);
  section.coordinates.unshift([loc[0], loc[1]]);
  section.distances.splice(0, 1, 0, step.distance);
  section.speeds.splice(0, 1, 0, step.speed);
  grow(section, step);
}

function grow(section: CleanedSection, step: Step): void {
  section.distance += step.distance;
  section.duration = section.endTs - section.startTs;
}
