import type { DaySensing } from '../../../shared/tables/participant-days.js';
import type { StoredEntry } from '../../../shared/timeseries/index.js';
import { localQuarter } from '../../../shared/time/index.js';
import { BATTERY_KEY, dataOf, LOCATION_KEYS, MOTION_KEY, TRANSITION_KEY, transitionStates } from './sensed-entries.js';

/** Entries that tell of the phone's sensing; labels, surveys and stats written by the app say nothing of it. */
const SENSING_KEYS: ReadonlySet<string> = new Set([...LOCATION_KEYS, MOTION_KEY, TRANSITION_KEY, BATTERY_KEY]);
/** How far ahead of the converter's clock an entry may be and still count: time zones and clock drift. */
const FUTURE_SLACK_S = 86_400;
/** How long before a transition its `curr_state` is placed: any instant before it, kept in the same quarter. */
const BEFORE_S = 0.001;

interface Accumulating {
  userId: string;
  localDate: string;
  data: Set<number>;
  locations: Set<number>;
  motions: Set<number>;
  states: Array<readonly [number, number]>;
  battery?: { pct: number; ts: number };
}

/**
 * What a batch of converted entries tells of each participant's local days: the quarter-hours with an entry, with a
 * location, with a motion activity, the states transitions reached, and the latest battery reading. Each entry is
 * placed by its own `data.ts` in the phone's own zone, so a day pushed late lands on the day it was sensed. Only
 * transitions and battery readings (a few per trip) are parsed again; the rest is read from the stored fields. An
 * entry dated more than a day after `now` (Unix seconds) is left out.
 */
export function daySensing(
  converted: ReadonlyArray<{ entry: StoredEntry; timeZone: string | null }>,
  now: number,
): DaySensing[] {
  const days = new Map<string, Accumulating>();
  for (const { entry, timeZone } of converted) {
    if (!SENSING_KEYS.has(entry.key) || timeZone === null || entry.dataTs === null) continue;
    // A phone clock set days ahead would make a day that has not come the participant's latest for good.
    if (entry.dataTs > now + FUTURE_SLACK_S) continue;
    const ts = entry.dataTs;
    const at = Number.isFinite(ts) ? localQuarter(ts, timeZone) : undefined;
    if (!at) continue;
    const id = `${entry.userId}|${at.localDate}`;
    let day = days.get(id);
    if (!day) {
      day = {
        userId: entry.userId,
        localDate: at.localDate,
        data: new Set(),
        locations: new Set(),
        motions: new Set(),
        states: [],
      };
      days.set(id, day);
    }
    day.data.add(at.quarter);
    if (LOCATION_KEYS.has(entry.key)) day.locations.add(at.quarter);
    else if (entry.key === MOTION_KEY) day.motions.add(at.quarter);
    else if (entry.key === TRANSITION_KEY) {
      const states = transitionStates(entry);
      // Two points of the phone's state over time: the state it was in up to the transition, then the one after.
      if (states) day.states.push([at.secondOfDay - BEFORE_S, states.before], [at.secondOfDay, states.after]);
    } else {
      const pct = dataOf(entry)['battery_level_pct'];
      if (typeof pct === 'number' && Number.isFinite(pct) && (!day.battery || ts >= day.battery.ts))
        day.battery = { pct, ts };
    }
  }
  return [...days.values()].map((d) => ({
    userId: d.userId,
    localDate: d.localDate,
    dataQuarters: [...d.data],
    locationQuarters: [...d.locations],
    motionQuarters: [...d.motions],
    states: d.states,
    ...(d.battery ? { battery: d.battery } : {}),
  }));
}
