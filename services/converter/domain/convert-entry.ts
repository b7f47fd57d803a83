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
export interface ConvertedEntry {
  key: string;
  type: string;
  writeTs: number;
  dataTs: number | null;
  metadata: Record<string, unknown>;
  data: Record<string, unknown>;
}

export type Conversion = { ok: true; entry: ConvertedEntry } | { ok: false; reason: string };

/** The zone e-mission assumes for Android entries that carry none (its formatters' default). */
const ANDROID_DEFAULT_TIME_ZONE = 'America/Los_Angeles';
/** Obfuscated field names of Google's DetectedActivity across Play Services versions: type, then confidence. */
const ANDROID_ACTIVITY_TYPE_FIELDS = ['agb', 'zzaEg', 'zzbjA', 'ajO', 'zzaKM', 'zzbhB'];
const ANDROID_ACTIVITY_CONFIDENCE_FIELDS = ['agc', 'zzaEh', 'zzbjB', 'ajP', 'zzaKN', 'zzbhC'];
const PLATFORMS = new Set(['android', 'ios', 'server']);
const GENERIC_FAMILIES = ['config/', 'stats/', 'manual/'];

const fail = (reason: string): Conversion => ({ ok: false, reason });

function isFiniteNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

function withTimes(ts: number, timeZone: string, data: Record<string, unknown>): Record<string, unknown> {
  return { ...data, ts, local_dt: localDate(ts, timeZone), fmt_time: isoLocal(ts, timeZone) };
}

function timeZoneOf(e: UsercacheEntry): string | undefined {
  const tz = e.metadata['time_zone'];
  if (typeof tz === 'string' && tz.length > 0) return tz;
  return e.platform === 'android' ? ANDROID_DEFAULT_TIME_ZONE : undefined;
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
  const flags = Object.keys(motionByIosFlag).filter((f) => d[f] === true);
  let type: number;
  if (flags.length === 0) type = MotionType.NONE;
  else if (flags.length === 1) type = motionByIosFlag[flags[0] as string] as number;
  else if (flags.length === 2 && flags.includes('stationary') && flags.includes('automotive'))
    type = MotionType.STOPPED_WHILE_IN_VEHICLE;
  else return fail(`${e.key} has two motion flags at once (${flags.join(', ')})`);
  const word = d['confidence_level'] ?? d['confidence'];
  const confidence = typeof word === 'string' ? confidenceByWord[word] : isFiniteNumber(word) ? word : undefined;
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
  const state = typeof stateName === 'string' ? stateByName[stateName] : undefined;
  if (state === undefined) return fail(`${e.key} has an unknown state ${JSON.stringify(stateName)}`);
  const transitionName = d['transition'];
  let transition: number | null = null;
  if (transitionName !== undefined && transitionName !== null) {
    const known = typeof transitionName === 'string' ? transitionByName[transitionName] : undefined;
    if (known === undefined) return fail(`${e.key} has an unknown transition ${JSON.stringify(transitionName)}`);
    transition = known;
  }
  return ok(e, e.key, ts, withTimes(ts, tz, { curr_state: state, transition }));
}

function convertTimed(e: UsercacheEntry, tz: string): Conversion {
  const ts = isFiniteNumber(e.data['ts']) ? e.data['ts'] : null;
  return ok(e, e.key, ts, ts === null ? e.data : withTimes(ts, tz, e.data));
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
      if (GENERIC_FAMILIES.some((family) => e.key.startsWith(family))) return convertTimed(e, tz);
      return fail(`unknown key ${JSON.stringify(e.key)}`);
  }
}
