import {
  confidenceByWord,
  MotionType,
  motionByIosFlag,
  stateByName,
  transitionByName,
} from '../../../shared/events/emission-enums.js';
import { isKnownTimeZone, isoLocal, isPlausibleTimestamp, localDate } from '../../../shared/time/index.js';
import type { UsercacheEntry } from '../../../shared/events/index.js';

/** The same entry in timeseries form. `key` may differ (Android `background/activity` is a motion activity). */
export type ConvertedEntry = Omit<UsercacheEntry, 'platform'> & {
  /** The payload's own time (`data.ts`), where it has one. */
  dataTs: number | null;
};

export type Conversion = { ok: true; entry: ConvertedEntry } | { ok: false; reason: string };

/**
 * The zone e-mission assumes when an entry carries none: its Android formatters' default, and its user-input
 * formatters' (generic/userlabel.py, generic/one_time_survey.py) on every platform.
 */
const EMISSION_DEFAULT_TIME_ZONE = 'America/Los_Angeles';
/** Obfuscated field names of Google's DetectedActivity across Play Services versions: type, then confidence. */
const ANDROID_ACTIVITY_TYPE_FIELDS = ['agb', 'zzaEg', 'zzbjA', 'ajO', 'zzaKM', 'zzbhB'];
const ANDROID_ACTIVITY_CONFIDENCE_FIELDS = ['agc', 'zzaEh', 'zzbjB', 'ajP', 'zzaKN', 'zzbhC'];
const PLATFORMS = new Set(['android', 'ios', 'server']);
/** Families stored as sent, with local forms of `data.ts` when there is one. `manual/*` is sorted out below. */
const GENERIC_FAMILIES = ['config/', 'stats/'];

/**
 * The `manual/*` inputs e-mission formats with generic/userlabel.py (its per-key modules for these keys all call
 * it): the phone sends the trip's or place's own `start_ts`/`end_ts`, and the matcher and the app read them back
 * with their local forms. Sets, not object tables: a key the phone made up (`manual/constructor`) must not find
 * anything on Object.prototype.
 */
const MULTILABEL_KEYS: ReadonlySet<string> = new Set([
  'manual/mode_confirm',
  'manual/purpose_confirm',
  'manual/replaced_mode',
]);
const START_END_INPUT_KEYS: ReadonlySet<string> = new Set([
  ...MULTILABEL_KEYS,
  // The older app's destination label: same shape, same formatter in e-mission.
  'manual/destination_confirm',
  'manual/trip_user_input',
  'manual/trip_addition_input',
  'manual/place_addition_input',
]);
/** Surveys answered once (onboarding), formatted by generic/one_time_survey.py: `{ts, fmt_time}`. */
const ONE_TIME_SURVEY_KEYS: ReadonlySet<string> = new Set(['manual/demographic_survey']);
/**
 * In e-mission's keylist but with no formatter module: e-mission's import fails and the entry lands in the error
 * timeseries. Stored here instead, it would be matched as a place survey that e-mission never shows.
 */
const UNFORMATTED_INPUT_KEYS: ReadonlySet<string> = new Set(['manual/place_user_input']);
/** Longest rendering of a phone-sent value inside a reason: a reason is a log line, not a copy of the payload. */
const MAX_REASON_VALUE_CHARS = 60;

const fail = (reason: string): Conversion => ({ ok: false, reason });

/**
 * A table lookup by a string the phone sent: own properties only. `table[name]` would find `constructor`,
 * `toString` or `__proto__` on Object.prototype and store a function or an object as a state.
 */
function lookup(table: Readonly<Record<string, number>>, name: unknown): number | undefined {
  return typeof name === 'string' && Object.hasOwn(table, name) ? table[name] : undefined;
}

function isFiniteNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

function withTimes(ts: number, timeZone: string, data: Record<string, unknown>): Record<string, unknown> {
  return { ...data, ts, local_dt: localDate(ts, timeZone), fmt_time: isoLocal(ts, timeZone) };
}

function isUserInputKey(key: string): boolean {
  return START_END_INPUT_KEYS.has(key) || ONE_TIME_SURVEY_KEYS.has(key);
}

function timeZoneOf(e: UsercacheEntry): string | undefined {
  const tz = e.metadata['time_zone'];
  if (typeof tz === 'string' && tz.length > 0) return tz;
  // Only e-mission's iOS sensor formatters fail without a zone; the user-input ones default on every platform.
  return e.platform === 'android' || isUserInputKey(e.key) ? EMISSION_DEFAULT_TIME_ZONE : undefined;
}

/** A phone-sent value for a reason, bounded (a 1 MB string as a start_ts must not become a 1 MB log line). */
function show(v: unknown): string {
  const text = typeof v === 'number' ? String(v) : (JSON.stringify(v) ?? String(v));
  return text.length > MAX_REASON_VALUE_CHARS ? `${text.slice(0, MAX_REASON_VALUE_CHARS)}…` : text;
}

function convertLocation(e: UsercacheEntry, tz: string): Conversion {
  const d = e.data;
  if (!isFiniteNumber(d['ts'])) return fail(`${e.key} has no numeric data.ts`);
  const loc = d['loc'] as { coordinates?: unknown } | undefined;
  const [lngFromLoc, latFromLoc] = Array.isArray(loc?.coordinates) ? (loc.coordinates as unknown[]) : [];
  const lng = isFiniteNumber(d['longitude']) ? d['longitude'] : lngFromLoc;
  const lat = isFiniteNumber(d['latitude']) ? d['latitude'] : latFromLoc;
  if (!isFiniteNumber(lng) || !isFiniteNumber(lat)) return fail(`${e.key} has no numeric latitude/longitude`);
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) return fail(`${e.key} has coordinates out of range (${lat}, ${lng})`);
  const { bearing, ...rest } = d;
  const heading = isFiniteNumber(d['heading']) ? d['heading'] : bearing;
  const data: Record<string, unknown> = {
    ...rest,
    latitude: lat,
    longitude: lng,
    loc: { type: 'Point', coordinates: [lng, lat] },
    heading,
  };
  // iOS locations carried the distance filter in metadata; segmentation reads data.filter.
  if (data['filter'] === undefined)
    data['filter'] = e.metadata['filter'] ?? (e.platform === 'ios' ? 'distance' : 'time');
  return ok(e, e.key, d['ts'], withTimes(d['ts'], tz, data));
}

function convertAndroidActivity(e: UsercacheEntry, tz: string): Conversion {
  const d = e.data;
  const typeField = ANDROID_ACTIVITY_TYPE_FIELDS.find((f) => isFiniteNumber(d[f]));
  const type = typeField ? d[typeField] : d['type'];
  if (!isFiniteNumber(type))
    return fail(`${e.key} has no activity type (none of ${ANDROID_ACTIVITY_TYPE_FIELDS.join(', ')})`);
  const confidenceField = ANDROID_ACTIVITY_CONFIDENCE_FIELDS.find((f) => isFiniteNumber(d[f]));
  const confidence = confidenceField ? d[confidenceField] : d['confidence'];
  const ts = isFiniteNumber(d['ts']) ? d['ts'] : e.writeTs;
  return ok(
    e,
    'background/motion_activity',
    ts,
    withTimes(ts, tz, { type, confidence: isFiniteNumber(confidence) ? confidence : null }),
  );
}

function convertIosActivity(e: UsercacheEntry, tz: string): Conversion {
  const d = e.data;
  const flags = Object.keys(motionByIosFlag).filter((f) => Object.hasOwn(d, f) && d[f] === true);
  let type: number;
  if (flags.length === 0) type = MotionType.NONE;
  else if (flags.length === 1) type = lookup(motionByIosFlag, flags[0]) as number;
  else if (flags.length === 2 && flags.includes('stationary') && flags.includes('automotive'))
    type = MotionType.STOPPED_WHILE_IN_VEHICLE;
  else return fail(`${e.key} has two motion flags at once (${flags.join(', ')})`);
  const word = d['confidence_level'] ?? d['confidence'];
  const confidence =
    typeof word === 'string' ? lookup(confidenceByWord, word) : isFiniteNumber(word) ? word : undefined;
  if (confidence === undefined) return fail(`${e.key} has an unknown confidence ${JSON.stringify(word)}`);
  const ts = e.writeTs;
  return ok(
    e,
    e.key,
    ts,
    withTimes(ts, tz, {
      ...d,
      type,
      confidence,
      confidence_level: typeof word === 'string' ? word : d['confidence_level'],
    }),
  );
}

function convertMotionActivity(e: UsercacheEntry, tz: string): Conversion {
  if (isFiniteNumber(e.data['type'])) {
    const ts = isFiniteNumber(e.data['ts']) ? e.data['ts'] : e.writeTs;
    return ok(e, e.key, ts, withTimes(ts, tz, e.data));
  }
  return e.platform === 'ios' ? convertIosActivity(e, tz) : convertAndroidActivity(e, tz);
}

function convertTransition(e: UsercacheEntry, tz: string): Conversion {
  const d = e.data;
  const ts = isFiniteNumber(d['ts']) ? d['ts'] : e.writeTs;
  if (isFiniteNumber(d['curr_state'])) return ok(e, e.key, ts, withTimes(ts, tz, d));
  const stateName = d['currState'];
  const state = lookup(stateByName, stateName);
  if (state === undefined) return fail(`${e.key} has an unknown state ${JSON.stringify(stateName)}`);
  const transitionName = d['transition'];
  let transition: number | null = null;
  if (transitionName !== undefined && transitionName !== null) {
    const known = lookup(transitionByName, transitionName);
    if (known === undefined) return fail(`${e.key} has an unknown transition ${JSON.stringify(transitionName)}`);
    transition = known;
  }
  return ok(e, e.key, ts, withTimes(ts, tz, { curr_state: state, transition }));
}

function convertTimed(e: UsercacheEntry, tz: string): Conversion {
  const ts = isFiniteNumber(e.data['ts']) ? e.data['ts'] : null;
  return ok(e, e.key, ts, ts === null ? e.data : withTimes(ts, tz, e.data));
}

/**
 * A label, survey answer or note, as generic/userlabel.py formats it: the phone's data untouched (label, status,
 * match_id, xmlResponse, jsonDocResponse…) plus the local forms of its start and end. e-mission would store any
 * start/end arrow can parse; here an input whose times cannot place it on a trip or place is dead-lettered, since
 * the matcher (which skips it) is the only reader of those times and a silently unmatched label looks like a lost
 * one to the person who gave it.
 */
function convertStartEndInput(e: UsercacheEntry, tz: string): Conversion {
  const d = e.data;
  const start = d['start_ts'];
  const end = d['end_ts'];
  if (!isPlausibleTimestamp(start)) return fail(`${e.key} has no valid data.start_ts (${show(start)})`);
  if (!isPlausibleTimestamp(end)) return fail(`${e.key} has no valid data.end_ts (${show(end)})`);
  if (end < start) return fail(`${e.key} ends before it starts (data.end_ts ${end} < data.start_ts ${start})`);
  // The trip keeps a MULTILABEL input as its label string alone (user_input.mode_confirm): anything else would
  // reach the app, the label counts and the aggregate metrics as an object or a number.
  if (MULTILABEL_KEYS.has(e.key) && typeof d['label'] !== 'string')
    return fail(`${e.key} has no string data.label (${show(d['label'])})`);
  const data = {
    ...d,
    start_local_dt: localDate(start, tz),
    start_fmt_time: isoLocal(start, tz),
    end_local_dt: localDate(end, tz),
    end_fmt_time: isoLocal(end, tz),
  };
  // userlabel.py leaves data.ts alone; an entry that has one stays findable by it, as before.
  return ok(e, e.key, isFiniteNumber(d['ts']) ? d['ts'] : null, data);
}

/** A one-time survey, as generic/one_time_survey.py formats it: local forms of when it was answered. */
function convertOneTimeSurvey(e: UsercacheEntry, tz: string): Conversion {
  const ts = e.data['ts'];
  // one_time_survey.py reads data.ts unconditionally, so e-mission dead-letters a survey without it.
  if (!isPlausibleTimestamp(ts)) return fail(`${e.key} has no valid data.ts (${show(ts)})`);
  return ok(e, e.key, ts, withTimes(ts, tz, e.data));
}

/**
 * Every other `manual/*` key keeps the generic treatment, except names of Object.prototype: the matcher files a
 * result under the key without `manual/`, and `user_input.__proto__` would replace the object's prototype.
 */
function convertOtherInput(e: UsercacheEntry, tz: string): Conversion {
  if (UNFORMATTED_INPUT_KEYS.has(e.key)) return fail(`${e.key} has no formatter in e-mission (never sent by the app)`);
  const name = e.key.slice('manual/'.length);
  if (Object.hasOwn(Object.prototype, name)) return fail(`unknown key ${JSON.stringify(e.key)}`);
  return convertTimed(e, tz);
}

function ok(e: UsercacheEntry, key: string, dataTs: number | null, data: Record<string, unknown>): Conversion {
  return { ok: true, entry: { key, type: e.type, writeTs: e.writeTs, dataTs, metadata: e.metadata, data } };
}

/**
 * Turns an entry as the phone pushed it into e-mission's timeseries form, or says why it cannot. Entries already
 * in timeseries form (exports, replays) pass through the same checks and come out unchanged in substance.
 * Never throws: a failure is a value, and the caller sends it to the error timeseries.
 */
export function convertEntry(e: UsercacheEntry): Conversion {
  if (e.platform === null || !PLATFORMS.has(e.platform)) return fail(`unknown platform ${JSON.stringify(e.platform)}`);
  // A timestamp past 2286 is a unit mistake; it would also break the date formatting and the day buckets.
  if (!isPlausibleTimestamp(e.writeTs)) return fail(`${e.key} has an implausible metadata.write_ts ${e.writeTs}`);
  if (isFiniteNumber(e.data['ts']) && !isPlausibleTimestamp(e.data['ts']))
    return fail(`${e.key} has an implausible data.ts ${e.data['ts']}`);
  const tz = timeZoneOf(e);
  if (tz === undefined) return fail(`${e.platform} entry ${e.key} has no metadata.time_zone`);
  if (!isKnownTimeZone(tz)) return fail(`unknown time zone ${JSON.stringify(tz)}`);
  const result = dispatch(e, tz);
  if (!result.ok) return result;
  const metadata = {
    ...e.metadata,
    key: result.entry.key,
    type: e.type,
    write_ts: e.writeTs,
    time_zone: tz,
    write_local_dt: localDate(e.writeTs, tz),
    write_fmt_time: isoLocal(e.writeTs, tz),
  };
  return { ok: true, entry: { ...result.entry, metadata } };
}

function dispatch(e: UsercacheEntry, tz: string): Conversion {
  switch (e.key) {
    case 'background/location':
    case 'background/filtered_location':
      return convertLocation(e, tz);
    case 'background/activity':
    case 'background/motion_activity':
      return convertMotionActivity(e, tz);
    case 'statemachine/transition':
      return convertTransition(e, tz);
    case 'background/battery':
    case 'background/bluetooth_ble':
      return convertTimed(e, tz);
    default:
      if (START_END_INPUT_KEYS.has(e.key)) return convertStartEndInput(e, tz);
      if (ONE_TIME_SURVEY_KEYS.has(e.key)) return convertOneTimeSurvey(e, tz);
      if (e.key.startsWith('manual/')) return convertOtherInput(e, tz);
      if (GENERIC_FAMILIES.some((family) => e.key.startsWith(family))) return convertTimed(e, tz);
      return fail(`unknown key ${JSON.stringify(e.key)}`);
  }
}
