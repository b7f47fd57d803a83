import { describe, expect, it } from 'vitest';
import { State, Transition } from '../../../shared/events/index.js';
import { storedEntry } from '../../../test/helpers/converter/stored-entry.js';
import { daySensing } from './day-sensing.js';

const stored = (key: string, dataTs: number | null, data: object = {}, userId = 'u') =>
  storedEntry(userId, key, dataTs, data);

// 2026-05-04 07:10 in Los Angeles (UTC-7) is 14:10 UTC.
const morning = Date.UTC(2026, 4, 4, 14, 10) / 1000;
const LA = 'America/Los_Angeles';
const NOW = Date.UTC(2026, 4, 6) / 1000;

describe('daySensing', () => {
  it('When a batch holds a morning of one phone, then its quarters, states and battery land on its local day', () => {
    const days = daySensing(
      [
        stored('background/filtered_location', morning),
        stored('background/motion_activity', morning + 900),
        stored('statemachine/transition', morning + 60, {
          curr_state: State.WAITING_FOR_TRIP_START,
          transition: Transition.EXITED_GEOFENCE,
        }),
        stored('background/battery', morning + 1800, { battery_level_pct: 81 }),
        stored('background/battery', morning + 10, { battery_level_pct: 83 }),
        stored('manual/mode_confirm', morning + 7200),
      ].map((entry) => ({ entry, timeZone: LA })),
      NOW,
    );
    expect(days).toEqual([
      {
        userId: 'u',
        localDate: '2026-05-04',
        dataQuarters: [28, 29, 30],
        locationQuarters: [28],
        motionQuarters: [29],
        states: [
          [7 * 3600 + 11 * 60 - 0.001, State.WAITING_FOR_TRIP_START],
          [7 * 3600 + 11 * 60, State.ONGOING_TRIP],
        ],
        battery: { pct: 81, ts: morning + 1800 },
      },
    ]);
  });

  it('When entries fall either side of local midnight, or lack a zone or a time, then each goes to its own day or none (nor one days ahead of the clock)', () => {
    const lateEvening = Date.UTC(2026, 4, 5, 6, 50) / 1000; // 23:50 on the 4th in LA
    const days = daySensing(
      [
        { entry: stored('background/location', lateEvening), timeZone: LA },
        { entry: stored('background/location', lateEvening + 1200), timeZone: LA },
        { entry: stored('background/location', lateEvening), timeZone: null },
        { entry: stored('background/location', null), timeZone: LA },
        { entry: stored('background/location', NOW + 3 * 86_400), timeZone: LA },
      ],
      NOW,
    );
    expect(days.map((d) => [d.localDate, d.locationQuarters])).toEqual([
      ['2026-05-04', [95]],
      ['2026-05-05', [0]],
    ]);
  });
});
