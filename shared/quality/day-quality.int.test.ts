import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { State, Transition } from '../events/index.js';
import { createUsersTable, openTables } from '../tables/index.js';
import { startInProcessPipeline, type InProcessPipeline } from '../../test/helpers/pipeline.js';
import { DAY_OF, phoneEntries } from '../../test/helpers/real-days.js';
import { waitFor } from '../../test/helpers/test-env.js';
import { pushEntries } from '../../test/helpers/trips.js';
import { createDayQualityReader, type DayQualityReader } from './day-quality.js';

/**
 * A real day pushed through the gateway and the converter, its completeness read as the console reads it: the
 * converter records each quarter-hour as the entries land, and the day scores as the unit test of the real days says.
 */

const DAY = 'shankari_2016-08-10';
const DATE = DAY_OF[DAY];
const USER = 'quality@example.org';

let pipeline: InProcessPipeline;
let quality: DayQualityReader;
let userId: string;

beforeAll(async () => {
  pipeline = await startInProcessPipeline();
  quality = createDayQualityReader(openTables(pipeline.env.cql), { maxDays: 92 });
  expect((await pipeline.gw.post('/profile/create', { user: USER })).status).toBe(200);
  userId = (await createUsersTable(pipeline.env.cql).findByEmail(USER))!.uuid;
});
afterAll(async () => {
  await pipeline?.stop();
});

describe('the completeness of a participant’s days', () => {
  it('When a real day is pushed, then its score, quarters and trips read as the rule gives them', async () => {
    await pushEntries(pipeline.gw, USER, phoneEntries(DAY));
    const day = await waitFor(async () => {
      const { days } = await quality(userId, { from: DATE, to: DATE });
      return days[0]?.quarters.located === 11 && days[0].trips > 0 ? days[0] : undefined;
    }, 120_000);
    // The participant's latest day: judged up to its last entry, every quarter-hour of it located or at a place.
    expect(day).toMatchObject({ localDate: DATE, score: 1, quarters: { located: 11 }, gaps: [] });
    expect(day.considered).toBeLessThan(96);
    expect(day.quarters.at_place).toBe(day.considered - 11);
    expect(day.battery?.pct).toBeGreaterThan(0);
  });

  it('When the phone then says tracking was turned off, then the next day is a tracking-off gap, not missing data', async () => {
    const next = phoneEntries(DAY).at(-1)!;
    // Noon of the following local day: 19:00 UTC is noon in the real day's Pacific (daylight) time.
    const noonNext = Date.parse(`${DATE}T19:00:00Z`) / 1000 + 86_400;
    const transition = (at: number, curr: number, kind: number) => ({
      metadata: { ...next.metadata, key: 'statemachine/transition', write_ts: at + 1 },
      data: { ts: at, curr_state: curr, transition: kind },
    });
    await pushEntries(pipeline.gw, USER, [
      transition(noonNext, State.WAITING_FOR_TRIP_START, Transition.STOP_TRACKING),
      transition(noonNext + 6 * 3600, State.TRACKING_STOPPED, Transition.RECEIVED_SILENT_PUSH),
    ]);
    const answer = await waitFor(async () => {
      const read = await quality(userId, {});
      return read.days.length === 2 ? read : undefined;
    }, 120_000);
    const [before, after] = answer.days;
    // No longer the latest: judged whole, as the unit test of the real days scores it.
    expect(before).toMatchObject({
      localDate: DATE,
      considered: 96,
      score: 1,
      quarters: { located: 11, at_place: 85 },
    });
    expect(after?.gaps).toEqual([{ from: '12:00', to: '18:15', reason: 'tracking_off' }]);
    expect(after?.quarters).toMatchObject({ at_place: 48, tracking_off: 25, no_data: 0 });
  });
});
