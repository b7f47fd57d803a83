import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../test/helpers/gateway.js';
import {
  compositeDayRows,
  failingFrom,
  sectionRows,
  seedLocations,
  withGateway,
  writeAll,
} from '../../test/helpers/reads.js';
import { createTestEnv, type TestEnv } from '../../test/helpers/test-env.js';
import { createCassandraDiaryReader } from './store/cassandra-diary-reader.js';

/**
 * What the read endpoints give away beyond their caps (see read-limits.int.test.ts
 * for the caps themselves): no two aggregate answers differ by one person, no answer holds more bytes than the
 * configured cap, and a read that fails stops reading. Data is written straight to Cassandra.
 */

const DAY = 1465948800; // 2016-06-15T00:00:00Z

let env: TestEnv;
let gw: RunningGateway;
beforeAll(async () => {
  // Accounts made today, trips of 2016: the history rule (metrics-differencing.int.test.ts) would count none.
  env = await createTestEnv({ WEBSERVER_AGGREGATE_MIN_HISTORY_DAYS: '0' });
  gw = await startGateway(env);
});
afterAll(async () => {
  await gw?.close();
  await env?.dispose();
});

async function register(token: string): Promise<string> {
  const res = await gw.post('/profile/create', { user: token });
  expect(res.status).toBe(200);
  return res.body.uuid as string;
}

describe('find_entries: bounded in bytes', () => {
  const TOKEN = 'bytes@example.org';
  let uuid: string;
  let times: number[];
  beforeAll(async () => {
    uuid = await register(TOKEN);
    times = await seedLocations(env.cql, uuid, DAY, 400, 200);
  }, 120_000);

  const find = (body: Record<string, unknown>) =>
    gw.post('/datastreams/find_entries/timestamp', {
      user: TOKEN,
      key_list: ['background/location'],
      start_time: DAY - 10,
      end_time: DAY + 10 * 86_400,
      ...body,
    });
  const writeTimes = (res: { body: any }) => res.body.phone_data.map((e: any) => e.metadata.write_ts as number);

  it('When the matching entries hold more bytes than find_entries_max_mb, then reading stops with a 400 naming the limit', async () => {
    const raw = await find({ end_time: times[399]! });
    expect(raw.status).toBe(200);
    const rawBytes = JSON.stringify(raw.body.phone_data).length;
    // A cap of a third of them: 400 entries are far within the count cap, not within this byte cap.
    const cap = Math.floor(rawBytes / 3);
    await withGateway(env, { findEntriesMaxBytes: cap }, async (small) => {
      const res = await small.post('/datastreams/find_entries/timestamp', {
        user: TOKEN,
        key_list: ['background/location'],
        start_time: DAY - 10,
        end_time: times[399]!,
      });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/MB/);
      expect(res.body.error.limit_mb).toBe(Math.round((cap / 1024 / 1024) * 1000) / 1000);
      const few = await small.post('/datastreams/find_entries/timestamp', {
        user: TOKEN,
        key_list: ['background/location'],
        start_time: DAY - 10,
        end_time: times[399]!,
        max_entries: 10,
        trunc_method: 'last',
      });
      expect(few.status).toBe(200);
      expect(writeTimes(few)).toEqual(times.slice(390, 400));
    });
  });

  it('When raw and analysis keys are asked together, then they merge by stored time under one byte cap', async () => {
    // A composite trip of ~30 kB, written (metadata.write_ts) between the 51st and 52nd locations.
    const trip = {
      _id: { $oid: 'c0ffee000000000000000001' },
      metadata: { key: 'analysis/composite_trip', write_ts: times[50]! + 100 },
      data: { start_ts: DAY + 3600, end_ts: DAY + 7200, pad: 'x'.repeat(30_000) },
    };
    await writeAll(env.cql, compositeDayRows(uuid, '2016-06-15', [trip]));
    const mixed = await find({
      key_list: ['background/location', 'analysis/composite_trip'],
      end_time: times[99]!,
    });
    expect(mixed.status).toBe(200);
    expect(mixed.body.phone_data).toHaveLength(101);
    expect(mixed.body.phone_data[51]._id.$oid).toBe(trip._id.$oid);
    expect(writeTimes(mixed)).toEqual([...times.slice(0, 51), trip.metadata.write_ts, ...times.slice(51, 100)]);

    const rawBytes = JSON.stringify(
      (await find({ key_list: ['background/location'], end_time: times[99]! })).body.phone_data,
    ).length;
    const tripBytes = JSON.stringify(trip).length;
    // Each alone fits; together they do not.
    const cap = Math.max(rawBytes, tripBytes) + Math.floor(Math.min(rawBytes, tripBytes) / 2);
    await withGateway(env, { findEntriesMaxBytes: cap }, async (small) => {
      const ask = (key_list: string[]) =>
        small.post('/datastreams/find_entries/timestamp', {
          user: TOKEN,
          key_list,
          start_time: DAY - 10,
          end_time: times[99]!,
        });
      expect((await ask(['background/location'])).status).toBe(200);
      expect((await ask(['analysis/composite_trip'])).status).toBe(200);
      const both = await ask(['background/location', 'analysis/composite_trip']);
      expect(both.status).toBe(400);
      expect(both.body.error.message).toMatch(/MB/);
    });
  });
});

describe('aggregates: no differencing undoes k-anonymity', () => {
  const AUG = Date.UTC(2016, 7, 1) / 1000;
  const D = 86_400;
  // Noon-ish UTC, so each section's Denver date is its UTC date: the local and timestamp series see the same days.
  const [A, B, C] = [AUG + 9 * D, AUG + 11 * D, AUG + 13 * D];
  const agg = (timeType: string, body: Record<string, unknown>) =>
    gw.post(`/result/metrics/${timeType}`, {
      metric_list: ['count', 'distance', 'duration'],
      is_return_aggregate: true,
      ...body,
    });
  const META = new Set(['ts', 'local_dt', 'fmt_time', 'nUsers']);
  /** Per mode, the sum of the visible values of a series. */
  const sums = (bins: Record<string, unknown>[]) => {
    const out: Record<string, number> = {};
    for (const b of bins)
      for (const [mode, v] of Object.entries(b)) if (!META.has(mode)) out[mode] = (out[mode] ?? 0) + Number(v);
    return out;
  };

  beforeAll(async () => {
    const ks = await Promise.all(['k1', 'k2', 'k3', 'k4', 'k5', 'k6'].map((u) => register(`${u}@example.org`)));
    const five = ks.slice(0, 5);
    await writeAll(
      env.cql,
      sectionRows([
        // Aug 10: five walk and five cycle; k1 walks again in the evening.
        ...five.map((userId, i) => ({ userId, startTs: A + 30_000 + i * 600, mode: 'ON_FOOT', distance: 1000 })),
        ...five.map((userId, i) => ({ userId, startTs: A + 40_000 + i * 600, mode: 'BICYCLING', distance: 500 })),
        { userId: ks[0]!, startTs: A + 70_000, mode: 'ON_FOOT', distance: 777 },
        // Aug 12: one person, alone all day.
        { userId: ks[5]!, startTs: B + 40_000, mode: 'ON_FOOT', distance: 3333 },
        { userId: ks[5]!, startTs: B + 50_000, mode: 'BICYCLING', distance: 2222 },
        // Aug 14: five walk; k2 alone drives.
        ...five.map((userId, i) => ({ userId, startTs: C + 30_000 + i * 600, mode: 'ON_FOOT', distance: 100 })),
        { userId: ks[1]!, startTs: C + 60_000, mode: 'IN_VEHICLE', distance: 9999 },
      ]),
    );
  });

  it('When two timestamp ranges differ by part of a day or month, then their aggregates are equal', async () => {
    for (const freq of ['D', 'M']) {
      const answers = await Promise.all(
        [
          [A, A + 50_000],
          [A, A + 86_399],
          [A + 1_000, A + 86_399],
        ].map(([start_time, end_time]) => agg('timestamp', { freq, start_time, end_time })),
      );
      for (const res of answers) expect(res.status).toBe(200);
      // Without widening, [A, A+50000] misses k1's evening walk: subtracting tells one person's 777 m.
      expect(answers[1]!.body.aggregate_metrics, freq).toEqual(answers[0]!.body.aggregate_metrics);
      expect(answers[2]!.body.aggregate_metrics, freq).toEqual(answers[0]!.body.aggregate_metrics);
    }
    const day = await agg('timestamp', { freq: 'D', start_time: A, end_time: A + 50_000 });
    expect(day.body.aggregate_metrics[1]).toEqual([
      expect.objectContaining({ ts: A, nUsers: 5, ON_FOOT: 5777, BICYCLING: 2500 }),
    ]);
    // The user's own call still covers exactly the asked range.
    const own = await gw.post('/result/metrics/timestamp', {
      user: 'k1@example.org',
      freq: 'D',
      start_time: A,
      end_time: A + 50_000,
      metric_list: ['distance'],
      is_return_aggregate: false,
    });
    expect(own.body.user_metrics[0][0]).toMatchObject({ ON_FOOT: 1000, BICYCLING: 500 });
    // The specification's own request form, `metric` a string that may be empty or absent: answered, as the count.
    for (const metric of ['', undefined]) {
      const spec = await gw.post('/result/metrics/timestamp', {
        user: 'k1@example.org',
        freq: 'D',
        start_time: A,
        end_time: A + 50_000,
        ...(metric === undefined ? {} : { metric }),
      });
      expect(spec.status, JSON.stringify(metric)).toBe(200);
      // The older form's answer: one metric's bins, trips counted (k1 walked once and cycled once that day).
      expect(spec.body.user_metrics).toEqual([expect.objectContaining({ nUsers: 1, ON_FOOT: 1, BICYCLING: 1 })]);
    }
    // Every day of the range is a bin, data or not: the series' ends do not tell when someone travelled.
    const month = await agg('timestamp', { freq: 'D', start_time: AUG, end_time: AUG + 20 * D });
    expect(month.body.aggregate_metrics[0]).toHaveLength(21);
  });

  it('When a month or year is compared with its visible days, then it holds nothing more than they do', async () => {
    const days = await agg('timestamp', { freq: 'D', start_time: AUG, end_time: AUG + 31 * D - 1 });
    const months = await agg('timestamp', { freq: 'M', start_time: AUG, end_time: AUG + 31 * D - 1 });
    expect(days.status).toBe(200);
    expect(months.status).toBe(200);
    for (let m = 0; m < 3; m++) {
      expect(months.body.aggregate_metrics[m]).toHaveLength(1);
      const { ts, local_dt, fmt_time, nUsers, ...modes } = months.body.aggregate_metrics[m][0];
      expect(modes).toEqual(sums(days.body.aggregate_metrics[m]));
    }
    // Not 6277 + 3333 walked and 2500 + 2222 cycled: the lone traveller of Aug 12 is nowhere in the month.
    expect(months.body.aggregate_metrics[1][0]).toMatchObject({ nUsers: 5, ON_FOOT: 6277, BICYCLING: 2500 });
    expect(Object.keys(months.body.aggregate_metrics[1][0])).not.toContain('IN_VEHICLE');

    for (const [freq, start_time, end_time] of [
      ['MONTHLY', { year: 2016, month: 8 }, { year: 2016, month: 8 }],
      ['YEARLY', { year: 2016 }, { year: 2016 }],
    ] as const) {
      const daily = await agg('local_date', { freq: 'DAILY', start_time, end_time });
      const coarse = await agg('local_date', { freq, start_time, end_time });
      expect(daily.status).toBe(200);
      expect(coarse.status).toBe(200);
      for (let m = 0; m < 3; m++) {
        expect(coarse.body.aggregate_metrics[m], freq).toHaveLength(1);
        const { ts, local_dt, fmt_time, nUsers, ...modes } = coarse.body.aggregate_metrics[m][0];
        expect(modes, freq).toEqual(sums(daily.body.aggregate_metrics[m]));
      }
      // Local-date days below k are left out, not shown empty.
      expect(daily.body.aggregate_metrics[0].every((b: { nUsers: number }) => b.nUsers >= 5)).toBe(true);
    }
  });
});

describe('metrics: an outage stops the whole scan', () => {
  it('When one day of a long aggregate fails to read, then the call is a 503 and the days still queued are not read', async () => {
    const outage = failingFrom(env.cql, 3);
    await withGateway(
      env,
      {},
      async (broken) => {
        const res = await broken.post('/result/metrics/timestamp', {
          freq: 'D',
          start_time: DAY - 700 * 86_400,
          end_time: DAY,
          metric_list: ['count'],
          is_return_aggregate: true,
        });
        expect(res.status).toBe(503);
        // Reads already in flight may finish; nothing new starts. Before, all 701 days were read after the answer.
        await new Promise((r) => setTimeout(r, 500));
        expect(outage.started()).toBeLessThanOrEqual(3 + 4);
      },
      { diary: createCassandraDiaryReader(outage.cql) },
    );
  });
});
