import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config/index.js';
import type { RunningGateway } from '../../test/helpers/gateway.js';
import { startInProcessPipeline, type InProcessPipeline } from '../../test/helpers/pipeline.js';
import { withGateway } from '../../test/helpers/reads.js';
import { DAY_OF, phoneEntries } from '../../test/helpers/real-days.js';
import { waitFor, type TestEnv } from '../../test/helpers/test-env.js';
import { compositeTrips, pushEntries, settledTrips, userInput } from '../../test/helpers/trips.js';

/**
 * `/result/metrics/yyyy_mm_dd`, the current app's group comparison: real days and labels pushed through gateway,
 * converter and trip builder, the answer read as the app asks for it. The environment's k is 2 (two users make
 * the group here); the default k (5) is checked with its own gateway.
 */

const DAY = 'shankari_2016-08-10';
const DATE = DAY_OF[DAY];
const TRIPS = 4;
const USERS = ['metrics-a@example.org', 'metrics-b@example.org'];

let pipeline: InProcessPipeline;
let env: TestEnv;
let gw: RunningGateway;

beforeAll(async () => {
  pipeline = await startInProcessPipeline({
    WEBSERVER_AGGREGATE_MIN_USERS: '2',
    // Accounts made today, trips of 2016: the history rule (metrics-differencing.int.test.ts) would count none.
    WEBSERVER_AGGREGATE_MIN_HISTORY_DAYS: '0',
  });
  ({ env, gw } = pipeline);
});
afterAll(async () => {
  await pipeline?.stop();
});

const label = (key: string, trip: any, value: string) =>
  userInput(key, { start: trip.data.start_ts, end: trip.data.end_ts }, { label: value });

const composites = (user: string) => compositeTrips(gw, user);

/** The app's request (MetricsTab.tsx fetchAggMetrics), with a metric_list object: the old answer form. */
const appRequest = (extra: Record<string, unknown> = {}) => ({
  freq: 'D',
  start_time: DATE,
  end_time: DATE,
  metric_list: {
    count: ['mode_confirm', 'purpose_confirm'],
    distance: ['mode_confirm'],
    duration: ['mode'],
    response_count: ['mode_confirm'],
    footprint: ['mode_confirm'],
  },
  is_return_aggregate: true,
  app_config: {
    label_options: {
      MODE: [
        { value: 'bike', baseMode: 'BICYCLING', kgCo2PerKm: 0 },
        { value: 'bus', kgCo2PerKm: 0.1 },
      ],
    },
  },
  aggregate: true,
  ...extra,
});

describe('label metrics (/result/metrics/yyyy_mm_dd)', () => {
  it('When two users travel and label, then the group cards count their trips by label, unlabelled trips under UNLABELED, in both answer forms', async () => {
    for (const user of USERS) {
      expect((await gw.post('/profile/create', { user })).status).toBe(200);
      await pushEntries(gw, user, phoneEntries(DAY));
    }
    for (const user of USERS) await settledTrips(gw, user, DATE, TRIPS);
    // The trips of the day (e-mission's day: start_fmt_time[:10]).
    const trips = (await Promise.all(USERS.map(composites))).map((list) =>
      list.filter((t) => String(t.data.start_fmt_time).startsWith(DATE)),
    );
    expect(trips[0]!.length).toBeGreaterThanOrEqual(3);
    const total = trips[0]!.length + trips[1]!.length;
    const distanceOf = (list: any[]) => list.reduce((n: number, t: any) => n + t.data.distance, 0);

    // Nothing labelled yet: every trip is UNLABELED, the sensed modes make `mode`.
    const before = await waitFor(
      async () => {
        const res = await gw.post('/result/metrics/yyyy_mm_dd', appRequest());
        expect(res.status).toBe(200);
        return res.body.count?.[0]?.mode_confirm_UNLABELED === total ? res.body : undefined;
      },
      30_000,
      'all trips counted as UNLABELED',
    );
    expect(before.count).toEqual([
      { date: DATE, nUsers: 2, mode_confirm_UNLABELED: total, purpose_confirm_UNLABELED: total },
    ]);
    expect(before.distance[0].mode_confirm_UNLABELED).toBeCloseTo(distanceOf(trips[0]!) + distanceOf(trips[1]!), 3);
    expect(before.response_count[0].mode_confirm_UNLABELED).toEqual({ responded: 0, not_responded: total });
    const sensed = Object.keys(before.duration[0]).filter((k) => k.startsWith('mode_'));
    expect(sensed.length).toBeGreaterThan(0);
    expect(sensed.every((k) => /^mode_[A-Z_]+$/.test(k))).toBe(true);

    // Both label their first trip "bike" and their second "work"; only A labels a trip "bus" (one user: withheld).
    await pushEntries(gw, USERS[0]!, [
      label('manual/mode_confirm', trips[0]![0], 'bike'),
      label('manual/purpose_confirm', trips[0]![1], 'work'),
      label('manual/mode_confirm', trips[0]![2], 'bus'),
    ]);
    await pushEntries(gw, USERS[1]!, [
      label('manual/mode_confirm', trips[1]![0], 'bike'),
      label('manual/purpose_confirm', trips[1]![1], 'work'),
    ]);
    // 30 s bounds a hang only: the labels are counted in well under a second here, and how fast is a bench figure.
    const after = await waitFor(
      async () => {
        const res = await gw.post('/result/metrics/yyyy_mm_dd', appRequest());
        const day = res.body.count?.[0];
        return day?.mode_confirm_bike === 2 &&
          day?.purpose_confirm_work === 2 &&
          day?.mode_confirm_UNLABELED === total - 3
          ? res.body
          : undefined;
      },
      30_000,
      'the labels counted',
    );
    const day = after.count[0];
    expect(day).toEqual({
      date: DATE,
      nUsers: 2,
      mode_confirm_bike: 2,
      mode_confirm_UNLABELED: total - 3,
      purpose_confirm_work: 2,
      purpose_confirm_UNLABELED: total - 2,
    });
    // "bus" was one person's: withheld from every metric, though its trip still counts in the day.
    expect(Object.keys(after.distance[0])).not.toContain('mode_confirm_bus');
    expect(after.distance[0].mode_confirm_bike).toBeCloseTo(trips[0]![0].data.distance + trips[1]![0].data.distance, 3);
    expect(after.duration[0].mode_bike).toBeCloseTo(trips[0]![0].data.duration + trips[1]![0].data.duration, 3);
    expect(after.response_count[0]).toMatchObject({
      mode_confirm_bike: { responded: 2, not_responded: 0 },
      mode_confirm_UNLABELED: { responded: 0, not_responded: total - 3 },
    });
    expect(after.footprint[0]).toEqual({ date: DATE, nUsers: 2, mode_confirm_bike: { kg_co2: 0 } });

    // The new form: metric_list as a list gives e-mission-common's day summaries.
    const asList = await gw.post('/result/metrics/yyyy_mm_dd', {
      ...appRequest(),
      metric_list: [['count', ['mode_confirm']], 'distance'],
    });
    expect(asList.status).toBe(200);
    expect(Array.isArray(asList.body)).toBe(true);
    expect(asList.body.map((d: any) => d.metric)).toEqual(['count', 'distance']);
    expect(asList.body[0]).toMatchObject({
      date: DATE,
      metric: 'count',
      nUsers: 2,
      dimensions: {
        mode_confirm: [
          { value: 'UNLABELED', measure: total - 3 },
          { value: 'bike', measure: 2 },
        ],
      },
    });
    expect(typeof asList.body[0].last_updated).toBe('number');

    // A day outside the range, and the range's end inclusive.
    const next = await gw.post(
      '/result/metrics/yyyy_mm_dd',
      appRequest({ start_time: '2016-08-11', end_time: '2016-08-12' }),
    );
    expect(next.body.count).toEqual([]);
    const wide = await gw.post('/result/metrics/yyyy_mm_dd', appRequest({ start_time: '2016-08-01', end_time: DATE }));
    expect(wide.body.count).toEqual(after.count);
  }, 240_000);

  it('When the default k applies, then a day of two users is withheld altogether', async () => {
    const k = loadConfig({ env: {} }).webserver.aggregateMinUsers;
    expect(k).toBe(5);
    await withGateway(env, { aggregateMinUsers: k }, async (strict) => {
      const res = await strict.post('/result/metrics/yyyy_mm_dd', appRequest());
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ count: [], distance: [], duration: [], response_count: [], footprint: [] });
      const asList = await strict.post('/result/metrics/yyyy_mm_dd', { ...appRequest(), metric_list: ['count'] });
      expect(asList.body).toEqual([]);
    });
  });

  it('When aggregate_call_auth is never, then the group cards are a 404, with or without a user', async () => {
    await withGateway(env, { aggregateCallAuth: 'never' }, async (closed) => {
      const anonymous = await closed.post('/result/metrics/yyyy_mm_dd', appRequest());
      expect(anonymous.status).toBe(404);
      const member = await closed.post('/result/metrics/yyyy_mm_dd', appRequest({ user: USERS[0], aggregate: false }));
      expect(member.status).toBe(404);
    });
  });
});
