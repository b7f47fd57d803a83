import type { SensingActivity } from '../../../shared/tables/participant-activity.js';
import type { StoredEntry } from '../../../shared/timeseries/index.js';
import { LOCATION_KEYS, TRANSITION_KEY, transitionStates } from './sensed-entries.js';

/**
 * Per user of a batch of converted entries, what the phone says of its own sensing: the newest entry of any kind, the
 * newest location, and the tracking state its newest transition reached, each by the phone's `data.ts`. The console's
 * radar tells from these a phone that went quiet, one that pushes without locations, and one whose tracking is off.
 * Only transitions are parsed again (a few per trip); every other entry is read from its stored fields.
 */
export function sensingActivity(entries: readonly StoredEntry[]): SensingActivity[] {
  const byUser = new Map<string, SensingActivity>();
  for (const e of entries) {
    if (e.dataTs === null || !Number.isFinite(e.dataTs)) continue;
    let seen = byUser.get(e.userId);
    if (!seen) {
      seen = { userId: e.userId, lastDataTs: undefined, lastLocationTs: undefined, lastState: undefined };
      byUser.set(e.userId, seen);
    }
    seen.lastDataTs = Math.max(seen.lastDataTs ?? e.dataTs, e.dataTs);
    if (LOCATION_KEYS.has(e.key)) seen.lastLocationTs = Math.max(seen.lastLocationTs ?? e.dataTs, e.dataTs);
    if (e.key === TRANSITION_KEY && (seen.lastState === undefined || e.dataTs >= seen.lastState.ts)) {
      const state = transitionStates(e)?.after;
      if (state !== undefined) seen.lastState = { state, ts: e.dataTs };
    }
  }
  return [...byUser.values()];
}
