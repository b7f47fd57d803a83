import type { LonLat } from '../../../shared/geo/geo.js';

/**
 * The three streams the trip builder reads, reduced to what the algorithms use. They come from converted
 * timeseries entries (`background/filtered_location`, `background/motion_activity`, `statemachine/transition`).
 */
export interface LocationPoint {
  /** The entry's identity in the timeseries, kept so cleaning can name the points it deletes. */
  id: string;
  ts: number;
  writeTs: number;
  loc: LonLat;
  altitude: number;
  accuracy: number;
  /** `time` (Android) or `distance` (iOS): which dwell filter the phone ran, so which segmenter applies. */
  filter: string;
  timeZone: string;
}

export interface MotionPoint {
  ts: number;
  type: number;
  confidence: number;
}

export interface TransitionPoint {
  ts: number;
  state: number;
  transition: number;
}

/** One user's observations over a window, each stream sorted by ts. */
export interface Observations {
  locations: LocationPoint[];
  motions: MotionPoint[];
  transitions: TransitionPoint[];
}

export const OBSERVED_KEYS = {
  location: 'background/filtered_location',
  motion: 'background/motion_activity',
  transition: 'statemachine/transition',
} as const;

export interface TimeseriesLike {
  _id?: unknown;
  metadata: { key: string; write_ts: number; time_zone?: string };
  data: Record<string, unknown>;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function entryId(e: TimeseriesLike): string {
  const id = e._id as { $oid?: string } | string | undefined;
  if (typeof id === 'string') return id;
  if (id && typeof id.$oid === 'string') return id.$oid;
  return `${e.metadata.key}@${e.metadata.write_ts}`;
}

/**
 * Builds the observations from converted entries in any order. Locations are de-duplicated on their fields
 * plus write_ts (as e-mission's dataframes are), then sorted by ts; a point older than one already seen in
 * write order is out of order and dropped, as e-mission invalidates it.
 */
export function toObservations(entries: readonly TimeseriesLike[]): Observations {
  const locations: LocationPoint[] = [];
  const motions: MotionPoint[] = [];
  const transitions: TransitionPoint[] = [];
  const seen = new Set<string>();
  for (const e of entries) {
    const d = e.data;
    const ts = num(d.ts);
    if (ts === undefined) continue;
    switch (e.metadata.key) {
      case OBSERVED_KEYS.location: {
        const lon = num(d.longitude) ?? num((d.loc as { coordinates?: number[] } | undefined)?.coordinates?.[0]);
        const lat = num(d.latitude) ?? num((d.loc as { coordinates?: number[] } | undefined)?.coordinates?.[1]);
        if (lon === undefined || lat === undefined) continue;
        const identity = `${ts}|${lat}|${lon}|${d.accuracy}|${e.metadata.write_ts}`;
        if (seen.has(identity)) continue;
        seen.add(identity);
        locations.push({
          id: entryId(e),
          ts,
          writeTs: e.metadata.write_ts,
          loc: [lon, lat],
          altitude: num(d.altitude) ?? 0,
          accuracy: num(d.accuracy) ?? 0,
          filter: typeof d.filter === 'string' ? d.filter : 'time',
          timeZone: e.metadata.time_zone ?? 'UTC',
        });
        break;
      }
      case OBSERVED_KEYS.motion: {
        const type = num(d.type);
        if (type !== undefined) motions.push({ ts, type, confidence: num(d.confidence) ?? 0 });
        break;
      }
      case OBSERVED_KEYS.transition: {
        const transition = num(d.transition);
        if (transition !== undefined) transitions.push({ ts, state: num(d.curr_state) ?? -1, transition });
        break;
      }
    }
  }
  const byTs = <T extends { ts: number }>(a: T, b: T) => a.ts - b.ts;
  return {
    locations: dropOutOfOrder(locations),
    motions: motions.sort(byTs),
    transitions: transitions.sort(byTs),
  };
}

/** In write order, a point whose ts is below the running maximum was recorded out of order. */
function dropOutOfOrder(points: LocationPoint[]): LocationPoint[] {
  const inWriteOrder = [...points].sort((a, b) => a.writeTs - b.writeTs || a.ts - b.ts);
  let maxTs = -Infinity;
  const kept: LocationPoint[] = [];
  for (const p of inWriteOrder) {
    if (p.ts < maxTs) continue;
    maxTs = p.ts;
    kept.push(p);
  }
  return kept.sort((a, b) => a.ts - b.ts || a.writeTs - b.writeTs);
}
