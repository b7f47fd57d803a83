import { describe, expect, it } from 'vitest';
import { scoreDays } from '../../../shared/quality/day-score.js';
import type { SensedDay } from '../../../shared/tables/participant-days.js';
import type { StoredEntry } from '../../../shared/timeseries/index.js';
import { DAY_OF, loadRealDay, REAL_DAYS } from '../../../test/helpers/real-days.js';
import { daySensing } from './day-sensing.js';

/** The day's entries as the converter stores them, scored as the console shows them. */
function scoreOfRealDay(name: (typeof REAL_DAYS)[number]) {
  const converted = loadRealDay(name).map((e) => ({
    entry: {
      userId: 'u',
      key: e.metadata.key,
      type: 'sensor-data',
      writeTs: e.metadata.write_ts,
      dataTs: typeof e.data['ts'] === 'number' ? e.data['ts'] : null,
      oid: '',
      entryJson: JSON.stringify({ metadata: e.metadata, data: e.data }),
    } satisfies StoredEntry,
    timeZone: e.metadata.time_zone ?? null,
  }));
  const days: SensedDay[] = daySensing(converted, Date.now() / 1000)
    .map((d) => ({
      ...d,
      dataQuarters: [...d.dataQuarters].sort((a, b) => a - b),
      locationQuarters: [...d.locationQuarters].sort((a, b) => a - b),
      motionQuarters: [...d.motionQuarters].sort((a, b) => a - b),
      states: d.states.map(([s, state]): [number, number] => [s, state]).sort((a, b) => a[0] - b[0]),
      battery: d.battery ?? null,
    }))
    .sort((a, b) => a.localDate.localeCompare(b.localDate));
  // Scored as a past day: the recording is the whole of what the phone sent that day.
  const [first, last] = [days[0]!.localDate, days.at(-1)!.localDate];
  return scoreDays(days, { from: first, to: last, latestDate: '9999-12-31' }).find(
    (d) => d.localDate === DAY_OF[name],
  )!;
}

/** The figures docs/data-quality.md states beside the rule: score, located and at-place quarters, listed gaps. */
const EXPECTED: Record<(typeof REAL_DAYS)[number], [number, number, number, number]> = {
  'shankari_2015-aug-27': [1, 25, 71, 0],
  'shankari_2015-08-23': [1, 7, 89, 0],
  'shankari_2016-08-10': [1, 11, 85, 0],
  'gabe_2016-06-15': [1, 28, 68, 0],
  'iphone_2016-02-22': [0.88, 8, 76, 0],
};

describe('the completeness score of the shared real days', () => {
  it.each(REAL_DAYS)('%s scores as the docs state', (name) => {
    const s = scoreOfRealDay(name);
    expect([s.score, s.quarters.located, s.quarters.at_place, s.gaps.length]).toEqual(EXPECTED[name]);
  });
});
