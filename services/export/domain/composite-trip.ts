import { sensedModeName } from '../../../shared/events/index.js';

/**
 * The parts of an `analysis/composite_trip` entry the export formatters read, and nothing more: a structural type,
 * so e-mission's expected composites, Itinera's own (`trip-builder/domain/diary/composite-trip.ts`) and anything
 * parsed from the timeseries all fit without conversion. Only the trip id and its time span are required; every
 * other field may be missing in stored data (untracked periods have no sections and no locations, older entries
 * lack formatted times) and each formatter says what it writes instead.
 */
export interface CompositeTrip {
  _id: { $oid: string };
  metadata?: { key?: string; origin_key?: string };
  data: {
    start_ts: number;
    end_ts: number;
    start_fmt_time?: string;
    end_fmt_time?: string;
    start_loc?: GeoPoint;
    end_loc?: GeoPoint;
    distance?: number;
    duration?: number;
    sections?: readonly SectionEntry[];
    locations?: readonly LocationEntry[];
    user_input?: Readonly<Record<string, UserInputValue>>;
    additions?: readonly { data?: unknown }[];
  };
}

/** A GeoJSON Point as e-mission stores it: coordinates are [longitude, latitude]. */
export interface GeoPoint {
  type?: string;
  coordinates?: readonly number[];
}

/** A section nested in a composite trip (`analysis/inferred_section`; `analysis/cleaned_section` before modes). */
export interface SectionEntry {
  _id?: { $oid?: string };
  data?: {
    start_ts?: number;
    end_ts?: number;
    start_fmt_time?: string;
    end_fmt_time?: string;
    distance?: number;
    duration?: number;
    sensed_mode?: number;
    sensed_mode_str?: string;
  };
}

/** An `analysis/recreated_location` entry nested in a composite trip. */
export interface LocationEntry {
  data?: {
    ts?: number;
    loc?: GeoPoint;
    latitude?: number;
    longitude?: number;
    altitude?: number;
  };
}

/**
 * What `user_input` maps a key to: the label string for MULTILABEL inputs (`mode_confirm: "walk"`), the whole
 * `manual/*` entry for a survey (`trip_user_input: {_id, metadata, data: {label, name, ...}}`).
 */
export type UserInputValue = string | { data?: { label?: unknown; name?: unknown } & Record<string, unknown> } | null;

/** A position as the formatters use it: longitude first, like GeoJSON. */
export type LonLat = [number, number];

/** The origin e-mission (and Itinera) give to a gap with no data: the phone was off or tracking was stopped. */
const UNTRACKED_ORIGIN = 'analysis/confirmed_untracked';

export function isUntracked(trip: CompositeTrip): boolean {
  return trip.metadata?.origin_key === UNTRACKED_ORIGIN;
}

/**
 * One string per `user_input` key, what a person would call the trip's labels: a MULTILABEL value is already its
 * label; a survey shows its summary `label` ("2 purposes, 1 mode") or, when it has none, the survey's `name`.
 * Keys whose value says nothing (null, a survey without either) are left out rather than written as empty labels.
 */
export function flattenLabels(userInput: CompositeTrip['data']['user_input']): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries(userInput ?? {})) {
    const label = labelOf(value);
    if (label !== undefined) labels[key] = label;
  }
  return labels;
}

function labelOf(value: UserInputValue): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== 'object') return String(value);
  const text = value.data?.label ?? value.data?.name;
  return text === undefined || text === null ? undefined : String(text);
}

/** The `user_input` values without their entry envelope: a survey keeps its answers but not the user's id. */
export function userInputData(value: UserInputValue): unknown {
  return value !== null && typeof value === 'object' ? value.data : value;
}

/**
 * A section's mode by name: its `sensed_mode_str`, the inferred mode (`CAR`, `BUS`, `WALKING`…) in composites
 * rendered since modes are inferred; a composite without it is older and holds the sensed MotionTypes value.
 */
export function sectionMode(section: SectionEntry): string {
  const data = section.data ?? {};
  if (data.sensed_mode_str !== undefined) return data.sensed_mode_str;
  return data.sensed_mode === undefined ? '' : sensedModeName(data.sensed_mode);
}

/** A GeoJSON point's [lon, lat], or undefined when it is missing or not a finite position. */
export function lonLatOf(point: GeoPoint | undefined): LonLat | undefined {
  const [lon, lat] = point?.coordinates ?? [];
  return isFiniteNumber(lon) && isFiniteNumber(lat) ? [lon, lat] : undefined;
}

/** A location's position: its GeoJSON `loc`, else its `longitude`/`latitude` fields. */
export function locationLonLat(location: LocationEntry): LonLat | undefined {
  const data = location.data;
  return lonLatOf(data?.loc) ?? lonLatOf({ coordinates: [data?.longitude ?? NaN, data?.latitude ?? NaN] });
}

/**
 * The trip's locations that have a time, in time order. They are stored sorted, so the common case only checks and
 * copies nothing. A location without `ts` is left out: a path and a GPX track are ordered by time, and such a
 * location has no place in either (stored `analysis/recreated_location` entries always have one).
 */
export function locationsInTimeOrder(trip: CompositeTrip): readonly TimedLocation[] {
  const locations = trip.data.locations ?? [];
  const timed = locations.every(hasTime) ? (locations as readonly TimedLocation[]) : locations.filter(hasTime);
  const sorted = timed.every((l, i) => i === 0 || timed[i - 1]!.data.ts <= l.data.ts);
  return sorted ? timed : [...timed].sort((a, b) => a.data.ts - b.data.ts);
}

export type TimedLocation = LocationEntry & { data: { ts: number } };

function hasTime(location: LocationEntry): location is TimedLocation {
  return isFiniteNumber(location.data?.ts);
}

export function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}
