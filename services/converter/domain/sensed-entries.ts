import { stateAfterTransition } from '../../../shared/events/index.js';
import type { StoredEntry } from '../../../shared/timeseries/index.js';

/*
 * What a stored entry says of the phone's own sensing, for the records the converter keeps beside the timeseries
 * (sensing-activity.ts for the radar, day-sensing.ts for the day's completeness).
 */

/** The keys of sensed locations, raw and filtered (the phone's own filter): either says location sensing works. */
export const LOCATION_KEYS: ReadonlySet<string> = new Set(['background/location', 'background/filtered_location']);
export const MOTION_KEY = 'background/motion_activity';
export const TRANSITION_KEY = 'statemachine/transition';
export const BATTERY_KEY = 'background/battery';
/** What the participant writes: labels, survey answers, notes (`manual/mode_confirm`, `manual/trip_user_input`, …). */
export const USER_INPUT_PREFIX = 'manual/';

/**
 * The data of entries parsed once: a batch's transitions and battery readings are read by both records the
 * converter keeps (sensing-activity.ts, day-sensing.ts), and the batch's entries are gone with it.
 */
const parsed = new WeakMap<StoredEntry, Record<string, unknown>>();

/** The stored entry's data; only transitions and battery readings (a few per trip) are parsed again. */
export function dataOf(entry: StoredEntry): Record<string, unknown> {
  let data = parsed.get(entry);
  if (data === undefined) {
    data = parseData(entry);
    parsed.set(entry, data);
  }
  return data;
}

function parseData(entry: StoredEntry): Record<string, unknown> {
  try {
    const data = (JSON.parse(entry.entryJson) as { data?: unknown }).data;
    return typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A transition's states: the one the phone was in when it came (`curr_state`) and the one it left it in. */
export function transitionStates(entry: StoredEntry): { before: number; after: number } | undefined {
  const { curr_state: before, transition } = dataOf(entry);
  if (typeof before !== 'number') return undefined;
  return { before, after: typeof transition === 'number' ? stateAfterTransition(before, transition) : before };
}
