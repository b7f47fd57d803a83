import type { SensingActivity } from '../../../shared/tables/participant-activity.js';
import type { StoredEntry } from '../../../shared/timeseries/index.js';
import { LOCATION_KEYS, TRANSITION_KEY, transitionStates, USER_INPUT_PREFIX } from './sensed-entries.js';

/**
 * Per user of a batch of converted entries, what the phone says of its own sensing: the newest entry of any kind, the
 * newest location, and the tracking state its newest transition reached, each by the phone's `data.ts`; and when the
 * participant last labelled, answered a survey or wrote a note. The console's radar tells from these a phone that
 * went quiet, one that pushes without locations, one whose tracking is off, and a participant who stopped labelling.
 * Only transitions are parsed again (a few per trip); every other entry is read from its stored fields.
 */
export function sensingActivity(entries: readonly StoredEntry[]): SensingActivity[] {
  const byUser = new Map<string, SensingActivity>();
  const of = (userId: string) => {
    let seen = byUser.get(userId);
    if (!seen) {
      seen = { userId, lastDataTs: undefined, lastLocationTs: undefined, lastState: undefined };
      byUser.set(userId, seen);
    }
    return seen;
  };
  for (const e of entries) {
    // A label, survey answer or note is the participant's doing, timed when they wrote it.
    if (e.key.startsWith(USER_INPUT_PREFIX) && Number.isFinite(e.writeTs)) {
      const seen = of(e.userId);
      seen.lastLabelTs = Math.max(seen.lastLabelTs ?? e.writeTs, e.writeTs);
    }
    if (e.dataTs === null || !Number.isFinite(e.dataTs)) continue;
    const seen = of(e.userId);
    seen.lastDataTs = Math.max(seen.lastDataTs ?? e.dataTs, e.dataTs);
    if (LOCATION_KEYS.has(e.key)) seen.lastLocationTs = Math.max(seen.lastLocationTs ?? e.dataTs, e.dataTs);
    if (e.key === TRANSITION_KEY && (seen.lastState === undefined || e.dataTs >= seen.lastState.ts)) {
      const state = transitionStates(e)?.after;
      if (state !== undefined) seen.lastState = { state, ts: e.dataTs };
    }
  }
  return [...byUser.values()];
}
