import type { z } from 'zod';
import type { DayTrip } from '../api/schemas.js';

type Trip = z.infer<typeof DayTrip>;
type LonLat = [number, number];

/* Reads composite trips (the entries the phone app reads, see trip-builder/domain/diary/composite-trip.ts) into what
 * the console's day page draws. Pure: the JSON comes in, the page's rows go out. */

interface Entry {
  _id?: { $oid?: string };
  metadata?: { origin_key?: string };
  data?: Record<string, unknown>;
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const str = (v: unknown) => (typeof v === 'string' ? v : '');

function lonLat(geometry: unknown): LonLat | null {
  const c = (geometry as { coordinates?: unknown } | null)?.coordinates;
  return Array.isArray(c) && typeof c[0] === 'number' && typeof c[1] === 'number' ? [c[0], c[1]] : null;
}

/** `user_input` values: a label string (MULTILABEL), or a whole survey entry (ENKETO), shown by its name. */
function labelText(value: unknown): string {
  if (typeof value === 'string') return value;
  const data = (value as Entry | null)?.data;
  return str(data?.['label']) || str(data?.['name']) || 'answered';
}

/** A note (an `additions` entry): its label, its name, or that there is one. */
function noteText(note: unknown): string {
  const data = (note as Entry | null)?.data;
  return str(data?.['label']) || str(data?.['name']) || 'note';
}

export function dayTripFrom(composite: Entry): Trip {
  const data = composite.data ?? {};
  const sectionEntries = (Array.isArray(data['sections']) ? data['sections'] : []) as Entry[];
  const locations = (Array.isArray(data['locations']) ? data['locations'] : []) as Entry[];
  const pointsBySection = new Map<string, LonLat[]>();
  for (const l of locations) {
    const section = (l.data?.['section'] as { $oid?: string } | undefined)?.$oid ?? '';
    const point = lonLat(l.data?.['loc']);
    if (!point) continue;
    const points = pointsBySection.get(section) ?? pointsBySection.set(section, []).get(section)!;
    points.push(point);
  }
  const sections = sectionEntries.map((s) => {
    const sectionId = s._id?.$oid ?? '';
    const d = s.data ?? {};
    const start = lonLat(d['start_loc']);
    const end = lonLat(d['end_loc']);
    const coordinates = pointsBySection.get(sectionId) ?? [start, end].filter((p): p is LonLat => p !== null);
    return {
      sectionId,
      mode: str(d['sensed_mode_str']) || 'UNKNOWN',
      startTs: num(d['start_ts']),
      endTs: num(d['end_ts']),
      distance: num(d['distance']),
      coordinates,
    };
  });
  const userInput = (data['user_input'] ?? {}) as Record<string, unknown>;
  const additions = Array.isArray(data['additions']) ? data['additions'] : [];
  return {
    tripId: composite._id?.$oid ?? '',
    startTs: num(data['start_ts']),
    endTs: num(data['end_ts']),
    startFmtTime: str(data['start_fmt_time']),
    endFmtTime: str(data['end_fmt_time']),
    distance: num(data['distance']),
    duration: num(data['duration']),
    modes: [...new Set(sections.map((s) => s.mode))],
    labels: Object.fromEntries(Object.entries(userInput).map(([k, v]) => [k, labelText(v)])),
    notes: additions.map(noteText),
    startPlace: lonLat((data['start_confirmed_place'] as Entry | undefined)?.data?.['location']),
    endPlace: lonLat((data['end_confirmed_place'] as Entry | undefined)?.data?.['location']),
    sections,
    // Where one section ends and the next begins: the stops (a change of mode) inside the trip.
    stops: sections.slice(1).flatMap((s) => (s.coordinates[0] ? [s.coordinates[0]] : [])),
    untracked: composite.metadata?.origin_key === 'analysis/confirmed_untracked',
  };
}

/** The composites of one trip-local date, in start order. */
export function dayTripsFrom(composites: readonly Entry[]): Trip[] {
  return composites.map(dayTripFrom).sort((a, b) => a.startTs - b.startTs);
}
