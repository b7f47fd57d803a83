import type { LonLat } from '../../../shared/geo/geo.js';
import type { LocationPoint } from '../../../services/trip-builder/domain/observations.js';

/**
 * Synthetic fixes for the trip builder's unit tests: positions are metres due north of one origin, so a test reads
 * as distances and times, and distances come out exactly as e-mission's haversine computes them.
 */

/** Metres per degree of latitude on e-mission's sphere (radius 6,371 km). */
export const M_PER_DEG_LAT = (2 * Math.PI * 6_371_000) / 360;

/** The point `metres` north of the origin. */
export const northOf = (metres: number): LonLat => [-122.25, 37.87 + metres / M_PER_DEG_LAT];

export interface FixOptions {
  /** `time` (Android, the default) or `distance` (iPhone): which segmenter the fix goes to. */
  filter?: 'time' | 'distance';
  /** When the phone wrote it: when it was taken unless said otherwise. */
  writeTs?: number;
  timeZone?: string;
  id?: string;
}

/** A fix taken at `ts`, `metres` north of the origin, as the timeseries holds it. */
export function fixAt(ts: number, metres: number, options: FixOptions = {}): LocationPoint {
  return {
    id: options.id ?? `${ts}`,
    ts,
    writeTs: options.writeTs ?? ts,
    loc: northOf(metres),
    altitude: 0,
    accuracy: 10,
    filter: options.filter ?? 'time',
    timeZone: options.timeZone ?? 'UTC',
  };
}
