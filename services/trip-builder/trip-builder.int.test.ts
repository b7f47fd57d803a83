import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../test/helpers/gateway.js';
import { intakeLogDir, runCli, startConverter, startTripBuilder } from '../../test/helpers/pipeline.js';
import { DAY_OF, loadGroundTruth, loadRealDay, phoneEntries, REAL_DAYS } from '../../test/helpers/real-days.js';
import { pushEntries, settledTrips, timeline as timelineOf, tripShape as shape } from '../../test/helpers/trips.js';
import { createTestEnv, waitFor, type TestEnv } from '../../test/helpers/test-env.js';
import type { RunningConverter } from '../converter/run-converter.js';
import { matches, type ReferenceTrip } from '../../test/helpers/evaluate-trips.js';
import { median } from '../../shared/geo/geo.js';
import { type MotionTypeName, predictModeWithStops } from './domain/modes/index.js';
import type { RunningTripBuilder } from './run-trip-builder.js';
import { createTimeseriesReader } from '../../shared/timeseries/index.js';

let env: TestEnv;
let gw: RunningGateway;
let converter: RunningConverter;
let builder: RunningTripBuilder;

beforeAll(async () => {
  // k = 1: the metrics test checks the aggregate of its single user (production withholds bins under 5 users).
  env = await createTestEnv({ WEBSERVER_AGGREGATE_MIN_USERS: '1' });
  gw = await startGateway(env);
  converter = await startConverter(env);
  builder = await startTripBuilder(env);
});
afterAll(async () => {
  await builder?.stop();
  await converter?.stop();
  await gw.close();
  await env.dispose();
});

const push = (user: string, entries: unknown[]) => pushEntries(gw, user, entries);
const timeline = (user: string, day: string) => timelineOf(gw, user, day);
const settled = (user: string, day: string, n: number) => settledTrips(gw, user, day, n);

const cli = (args: string[]) => runCli(env, args);

const reference = new Map<string, any[]>();

describe('trip builder', () => {
  it("When the five real days are pushed like a phone, then getTrips serves trips matching e-mission's ground truth, the usercache holds the diary documents, and the pipeline reports progress", async () => {
    for (const name of REAL_DAYS) {
      await gw.post('/profile/create', { user: `one-${name}` });
      await push(`one-${name}`, phoneEntries(name));
    }
    for (const name of REAL_DAYS) {
      const truth = loadGroundTruth(name);
      const trips = await settled(`one-${name}`, DAY_OF[name], Math.ceil(truth.length * 0.9));
      reference.set(name, trips);
      const expected: ReferenceTrip[] = truth.map((t) => ({
        startTs: t.properties['start_ts'],
        endTs: t.properties['end_ts'],
        startLoc: t.properties['start_loc'].coordinates,
        endLoc: t.properties['end_loc'].coordinates,
        modes: [],
      }));
      const got = trips.map((t) => ({
        startTs: t.properties.start_ts,
        endTs: t.properties.end_ts,
        startLoc: t.properties.start_loc.coordinates,
        endLoc: t.properties.end_loc.coordinates,
      }));
      // Every e-mission trip found, and nothing else (as the pure build does, build-trips.test.ts).
      expect(expected.filter((e) => got.some((g) => matches(g, e))).length, name).toBe(expected.length);
      expect(got.filter((g) => expected.some((e) => matches(g, e))).length, name).toBe(got.length);
    }
    const user = 'one-shankari_2015-aug-27';
    const docs = (await gw.post('/usercache/get', { user })).body.server_to_phone as any[];
    expect(docs.map((d) => d.metadata.key)).toContain('diary/trips-2015-08-27');
    const doc = docs.find((d) => d.metadata.key === 'diary/trips-2015-08-27');
    expect(shape(doc.data)).toEqual(shape(reference.get('shankari_2015-aug-27')!));
    const complete = (await gw.post('/pipeline/get_complete_ts', { user })).body.complete_ts;
    expect(complete).toBeGreaterThan(1440700000);
    const range = (await gw.post('/pipeline/get_range_ts', { user })).body;
    expect(range.start_ts).toBeLessThan(range.end_ts);
    const log = execFileSync('sh', [
      '-c',
      `zcat ${join(intakeLogDir(), 'intake_0-trips.log.gz')} 2>/dev/null || true`,
    ]).toString();
    expect(log).toMatch(/Adding \d+ trips for day 2015-08-27/);
  });

  it('When metrics are asked for the known day, then count, distance and duration per mode equal the sums over its sections', async () => {
    const user = 'one-shankari_2015-aug-27';
    const sections = reference
      .get('shankari_2015-aug-27')!
      .flatMap((t) =>
        t.features.filter((f: any) => f.type === 'FeatureCollection').map((f: any) => f.features[0].properties),
      );
    // The metrics count sections by inferred mode: getTrips' sensed mode through the rule engine (no transit data
    // here, so IN_VEHICLE is CAR).
    const inferred = (s: any) =>
      predictModeWithStops(
        {
          sensedMode: String(s.sensed_mode).split('.')[1]! as MotionTypeName,
          medianSpeed: median(s.speeds),
          distance: s.distance,
          duration: s.duration,
          startLoc: [0, 0],
          endLoc: [0, 0],
        },
        [],
        [],
      ).mode;
    const byMode = (fn: (s: any) => number) => {
      const out: Record<string, number> = {};
      for (const s of sections) out[inferred(s)] = (out[inferred(s)] ?? 0) + fn(s);
      return out;
    };
    // 2015-08-27 00:00 UTC .. 2015-08-28 23:59 UTC: the day's sections start between 15:00 and 03:00 UTC.
    const res = await gw.post('/result/metrics/timestamp', {
      user,
      freq: 'D',
      start_time: 1440633600,
      end_time: 1440806399,
      metric_list: ['count', 'distance', 'duration', 'mean_speed'],
      is_return_aggregate: true,
    });
    expect(res.status).toBe(200);
    const [count, distance, duration] = res.body.user_metrics as any[][];
    const sum = (bins: any[], mode: string) => bins.reduce((a, b) => a + (b[mode] ?? 0), 0);
    for (const [mode, n] of Object.entries(byMode(() => 1))) expect(sum(count!, mode), mode).toBe(n);
    for (const [mode, d] of Object.entries(byMode((s) => s.distance))) expect(sum(distance!, mode)).toBeCloseTo(d, 3);
    for (const [mode, d] of Object.entries(byMode((s) => s.duration))) expect(sum(duration!, mode)).toBeCloseTo(d, 3);
    expect(count![0]).toMatchObject({ ts: 1440633600, fmt_time: '2015-08-27T00:00:00+00:00', nUsers: 1 });
    expect(res.body.aggregate_metrics[0][0].nUsers).toBeGreaterThanOrEqual(1);
    const local = await gw.post('/result/metrics/local_date', {
      user,
      freq: 'DAILY',
      start_time: { year: 2015, month: 8, day: 27 },
      end_time: { year: 2015, month: 8, day: 27 },
      metric_list: ['count'],
      is_return_aggregate: false,
    });
    expect(local.body.user_metrics[0]).toHaveLength(1);
    expect(local.body.user_metrics[0][0]).toMatchObject({ fmt_time: '2015-08-27', ...byMode(() => 1) });
  });

  it('When an operator resets one user to a date with the CLI, then the trips are rebuilt identical and other users are untouched', async () => {
    const user = 'one-shankari_2015-aug-27';
    const other = 'one-gabe_2016-06-15';
    const before = shape(await timeline(other, DAY_OF['gabe_2016-06-15']!));
    expect(await cli(['reset-pipeline', '-u', user, '-d', '2015-08-27', '--dry-run'])).toMatch(/replacing \d+ trips/);
    const out = await cli(['reset-pipeline', '-u', user, '-d', '2015-08-27']);
    expect(out).toMatch(/rebuilt \d+ trips; days rewritten: .*2015-08-27/);
    expect(shape(await timeline(user, '2015-08-27'))).toEqual(shape(reference.get('shankari_2015-aug-27')!));
    expect(shape(await timeline(other, DAY_OF['gabe_2016-06-15']!))).toEqual(before);
  });

  it('When every user is reset to a date and the pipeline runs again, then the derived trips are identical and nothing is doubled', async () => {
    await builder.stop();
    await converter.stop();
    expect(await cli(['reset-pipeline', '-a', '-d', '2015-08-27'])).toMatch(/reset done/);
    converter = await startConverter(env);
    builder = await startTripBuilder(env);
    for (const name of ['shankari_2015-aug-27', 'iphone_2016-02-22'] as const) {
      const user = `one-${name}`;
      const expected = JSON.stringify(shape(reference.get(name)!));
      await waitFor(
        async () => (JSON.stringify(shape(await timeline(user, DAY_OF[name]))) === expected ? true : undefined),
        90_000,
        `${name} rebuilt identical`,
      );
    }
    const uuid = (await gw.post('/profile/create', { user: 'one-gabe_2016-06-15' })).body.uuid as string;
    const counts = await createTimeseriesReader(env.cql).countByKey(uuid);
    const raw = loadRealDay('gabe_2016-06-15');
    const identities = new Set(raw.map((e) => `${e.metadata.key}|${(e.metadata as any).type}|${e.metadata.write_ts}`));
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    expect(total).toBe(identities.size);
  });

  it('When a day is pushed in two batches, processed in between, then it gives the same trips as one push', async () => {
    const name = 'shankari_2015-aug-27';
    const entries = phoneEntries(name);
    const cut = Math.floor(entries.length * 0.55);
    await gw.post('/profile/create', { user: 'two-batches' });
    await push('two-batches', entries.slice(0, cut));
    await settled('two-batches', DAY_OF[name], 1);
    await push('two-batches', entries.slice(cut));
    const expected = shape(reference.get(name)!).map(({ id: _id, ...rest }) => rest);
    await waitFor(
      async () =>
        JSON.stringify(shape(await timeline('two-batches', DAY_OF[name])).map(({ id: _id, ...r }) => r)) ===
        JSON.stringify(expected)
          ? true
          : undefined,
      60_000,
      'the two-batch day to equal the one-push day',
    );
  });

  it('When the trip builder is restarted mid-day, then nothing is lost or doubled', async () => {
    const name = 'gabe_2016-06-15';
    const entries = phoneEntries(name);
    const cut = Math.floor(entries.length * 0.4);
    await gw.post('/profile/create', { user: 'restarted' });
    await push('restarted', entries.slice(0, cut));
    await settled('restarted', DAY_OF[name], 1);
    await builder.stop();
    await push('restarted', entries.slice(cut));
    builder = await startTripBuilder(env);
    const expected = shape(reference.get(name)!).map(({ id: _id, ...rest }) => rest);
    const trips = await waitFor(
      async () => {
        const t = await timeline('restarted', DAY_OF[name]);
        return JSON.stringify(shape(t).map(({ id: _id, ...r }) => r)) === JSON.stringify(expected) ? t : undefined;
      },
      60_000,
      'the restarted day to equal the undisturbed day',
    );
    expect(new Set(trips.map((t) => t.id)).size).toBe(trips.length);
  });
});
