import type { ParticipantRow } from '../../../services/console/participants/query-participants.js';

const H = 3600;

/**
 * A participant index row as of `now`: registered 30 days ago, pushing and locating an hour ago, of program `study`;
 * `fields` say what a test needs otherwise.
 */
export function participantRow(id: number, now: number, fields: Partial<ParticipantRow> = {}): ParticipantRow {
  return {
    userId: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
    token: `nrelop_study_default_${'x'.repeat(20)}${id}`,
    program: 'study',
    created: now - 30 * 24 * H,
    firstPush: now - 29 * 24 * H,
    lastPush: now - H,
    lastTrip: null,
    lastTripLocal: null,
    lastData: now - H,
    lastLocation: now - H,
    trackingOffSince: null,
    lastLabel: null,
    trips: 3,
    labelledPct: null,
    errors: 0,
    platform: 'android',
    appVersion: null,
    ...fields,
  };
}
