import { haversine, type LonLat } from '../../../../shared/geo/geo.js';

/** Cleaned sections are resampled on a fixed clock so every section's geometry has comparable density. */
export const RESAMPLE_INTERVAL_S = 30;

export interface Fix {
  ts: number;
  loc: LonLat;
  altitude: number;
}

export interface ResampledTrack {
  times: number[];
  coordinates: [number, number][];
  altitudes: number[];
  /** Metres from the previous point (0 for the first). */
  distances: number[];
  /** m/s from the previous point (0 for the first). */
  speeds: number[];
  distance: number;
}

/** Linear interpolation of the fixes at start, start + 30 s, …, and the end time itself. */
export function resample(fixes: readonly Fix[]): ResampledTrack {
  const start = fixes[0]!.ts;
  const end = fixes[fixes.length - 1]!.ts;
  const times: number[] = [];
  for (let t = start; t < end; t += RESAMPLE_INTERVAL_S) times.push(t);
  times.push(end);
  const coordinates: [number, number][] = [];
  const altitudes: number[] = [];
  let j = 0;
  for (const t of times) {
    while (j < fixes.length - 2 && fixes[j + 1]!.ts < t) j++;
    const a = fixes[j]!;
    const b = fixes[Math.min(j + 1, fixes.length - 1)]!;
    const f = b.ts > a.ts ? Math.min(1, Math.max(0, (t - a.ts) / (b.ts - a.ts))) : 0;
    coordinates.push([a.loc[0] + (b.loc[0] - a.loc[0]) * f, a.loc[1] + (b.loc[1] - a.loc[1]) * f]);
    altitudes.push(a.altitude + (b.altitude - a.altitude) * f);
  }
  const distances = [0];
  const speeds = [0];
  for (let i = 1; i < times.length; i++) {
    const d = haversine(coordinates[i - 1]!, coordinates[i]!);
    const dt = times[i]! - times[i - 1]!;
    distances.push(d);
    speeds.push(dt > 0 ? d / dt : 0);
  }
  return { times, coordinates, altitudes, distances, speeds, distance: distances.reduce((x, y) => x + y, 0) };
}
