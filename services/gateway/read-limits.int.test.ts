import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTimeseriesReader } from '../../shared/timeseries/index.js';
import { startGateway, type RunningGateway } from '../../test/helpers/gateway.js';
import {
  counted,
  reads,
  resetReads,
  sectionRows,
  seedLocations,
  slowestWhile,
  withGateway,
  writeAll,
} from '../../test/helpers/reads.js';
import { createTestEnv, type TestEnv } from '../../test/helpers/test-env.js';
import { createCassandraDiaryReader } from './store/cassandra-diary-reader.js';

/**
 * The read endpoints under hostile or merely huge requests: every call is
 * bounded in what it reads, holds and computes, refuses with a 400 naming the limit or the field, and no
 * aggregate tells one person's travel. Data is written straight to Cassandra: these tests are about reading.
 */

const FIND_MAX = 500;
const DAY = 1465948800; // 2016-06-15T00:00:00Z

let env: TestEnv;
let gw: RunningGateway;
beforeAll(async () => {
  env = await createTestEnv({
    WEBSERVER_FIND_ENTRIES_MAX: String(FIND_MAX),
    // Accounts made today, trips of 2016: the history rule (metrics-differencing.int.test.ts) would count none.
    WEBSERVER_AGGREGATE_MIN_HISTORY_DAYS: '0',
  });
  const cql = counted(env.cql);
  gw = await startGateway(env, { diary: createCassandraDiaryReader(cql), timeseries: createTimeseriesReader(cql) });
});
afterAll(async () => {
  await gw?.close();
  await env?.dispose();
});

async function register(token: string, on: RunningGateway = gw): Promise<string> {
  const res = await on.post('/profile/create', { user: token });
  expect(res.status).toBe(200);
  return res.body.uuid as string;
}

describe('metrics: bounded work', () => {
  const TOKEN = 'heavy@example.org';
  let uuid: string;
  beforeAll(async () => {
    uuid = await register(TOKEN);
    const modes = ['ON_FOOT', 'BICYCLING', 'IN_VEHICLE', 'UNKNOWN'];
    // 4,000 sections a day for ten days, from noon UTC (06:00 in Denver): one month's bin holds all 40,000.
    await writeAll(
      env.cql,
      sectionRows(
        Array.from({ length: 40_000 }, (_, i) => ({
          userId: uuid,
          startTs: DAY + (i % 10) * 86_400 + 43_200 + Math.floor(i / 10) * 2,
          mode: modes[i % 4]!,
        })),
      ),
    );
  }, 180_000);

  it('When a user has 40,000 sections in one bin, then the metrics answer, summed right, and a concurrent cheap call is not stalled', async () => {
    const heavy = gw.post('/result/metrics/timestamp', {
      user: TOKEN,
      freq: 'M',
      start_time: DAY,
      end_time: DAY + 10 * 86_400 - 1,
      metric_list: ['count', 'distance', 'duration', 'mean_speed', 'median_speed'],
      is_return_aggregate: true,
    });
    const local = gw.post('/result/metrics/local_date', {
      user: TOKEN,
      freq: 'MONTHLY',
      start_time: { year: 2016, month: 6, day: 15 },
      end_time: { year: 2016, month: 6, day: 24 },
      metric_list: ['count', 'distance'],
      is_return_aggregate: false,
    });
    // The old grouping copied a bin's array per section: seconds per metric, with every other call waiting. Cheap
    // calls answered one after another while the heavy ones run show the gateway keeps serving (about 20 here); how
    // long each waits is the soak's figure, not this test's.
    const { calls } = await slowestWhile(gw, Promise.all([heavy, local]), TOKEN);
    const [res, localRes] = await Promise.all([heavy, local]);
    expect(calls).toBeGreaterThanOrEqual(5);
    expect(res.status).toBe(200);
    const [count, distance, , meanSpeed] = res.body.user_metrics;
    expect(count).toHaveLength(1);
    expect(count[0]).toMatchObject({
      ts: Date.UTC(2016, 5, 1) / 1000,
      ON_FOOT: 10_000,
      BICYCLING: 10_000,
      IN_VEHICLE: 10_000,
      UNKNOWN: 10_000,
      nUsers: 1,
    });
    expect(distance[0].ON_FOOT).toBe(1_000_000);
    expect(meanSpeed[0].ON_FOOT).toBe(2);
    // One person's 40,000 sections are still one person: the aggregate withholds them (k = 5 by default).
    expect(res.body.aggregate_metrics[0][0]).toMatchObject({ nUsers: 0 });
    expect(Object.keys(res.body.aggregate_metrics[0][0])).not.toContain('ON_FOOT');
    expect(localRes.status).toBe(200);
    expect(localRes.body.user_metrics[0]).toHaveLength(1);
    expect(localRes.body.user_metrics[0][0]).toMatchObject({ fmt_time: '2016-06', ON_FOOT: 10_000, UNKNOWN: 10_000 });
  }, 120_000);

  it('When a scan would read more sections than one call may, then it stops there with a 400 naming the limit', async () => {
    await withGateway(env, { metricsMaxSections: 1000 }, async (small) => {
      const res = await small.post('/result/metrics/timestamp', {
        user: TOKEN,
        freq: 'D',
        start_time: DAY,
        end_time: DAY + 10 * 86_400 - 1,
        metric_list: ['count'],
        is_return_aggregate: false,
      });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/1000 sections/);
      expect(res.body.error.limit).toBe(1000);
    });
  });

  it('When metric_list repeats names or names unknown ones, then repeats are answered once and unknown names are 400s', async () => {
    const base = { user: TOKEN, freq: 'D', start_time: DAY, end_time: DAY + 10, is_return_aggregate: false };
    const twice = await gw.post('/result/metrics/timestamp', { ...base, metric_list: ['count', 'count', 'count'] });
    expect(twice.status).toBe(200);
    expect(twice.body.user_metrics).toHaveLength(1);
    for (const name of ['constructor', '__proto__', 'toString', 'speed']) {
      const res = await gw.post('/result/metrics/timestamp', { ...base, metric_list: [name] });
      expect(res.status, name).toBe(400);
      expect(res.body.error.message).toMatch(/metric_list/);
    }
    for (const list of [
      { constructor: ['mode_confirm'] },
      JSON.parse('{"__proto__": ["mode_confirm"]}'),
      ['hasOwnProperty'],
    ]) {
      const res = await gw.post('/result/metrics/yyyy_mm_dd', {
        freq: 'D',
        start_time: '2016-06-01',
        end_time: '2016-06-14',
        metric_list: list,
        aggregate: true,
      });
      expect(res.status, JSON.stringify(list)).toBe(400);
    }
    for (const odd of [{ freq: { toString: 'D' } }, { freq: 'W' }, { is_return_aggregate: 'yes' }, { aggregate: 1 }]) {
      const res = await gw.post('/result/metrics/timestamp', { ...base, metric_list: ['count'], ...odd });
      expect(res.status, JSON.stringify(odd)).toBe(400);
    }
    const cards = await gw.post('/result/metrics/yyyy_mm_dd', {
      freq: 'D',
      start_time: '2016-06-01',
      end_time: '2016-06-14',
      metric_list: { distance: ['mode_confirm'], footprint: ['mode_confirm'] },
      aggregate: true,
    });
    expect(cards.status).toBe(200);
    expect(cards.body).toEqual({ distance: [], footprint: [] });
  });

  it('When a range is longer than two years, then it is a 400 naming the limit, and a long legal range reads a few days at a time', async () => {
    const tooLong = await gw.post('/result/metrics/timestamp', {
      user: TOKEN,
      freq: 'D',
      start_time: DAY - 3 * 365 * 86_400,
      end_time: DAY,
      metric_list: ['count'],
      is_return_aggregate: false,
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.message).toMatch(/731 days/);
    const longLocal = await gw.post('/result/metrics/local_date', {
      user: TOKEN,
      freq: 'YEARLY',
      start_time: { year: 2014 },
      end_time: { year: 2016 },
      metric_list: ['count'],
      is_return_aggregate: false,
    });
    expect(longLocal.status).toBe(400);
    expect(longLocal.body.error.message).toMatch(/731 days/);

    resetReads();
    const year = await gw.post('/result/metrics/timestamp', {
      user: TOKEN,
      freq: 'M',
      start_time: DAY - 300 * 86_400,
      end_time: DAY - 1,
      metric_list: ['count'],
      is_return_aggregate: false,
    });
    expect(year.status).toBe(200);
    // 300 day partitions, never all at once (the old code had one promise per day in flight).
    expect(reads.maxInFlight).toBeLessThanOrEqual(4);
  });
});

describe('metrics and trips: calendar inputs', () => {
  const TOKEN = 'calendar@example.org';
  beforeAll(async () => {
    await register(TOKEN);
  });

  it('When getTrips names a day that does not exist, then it is a 400, not another day', async () => {
    for (const day of ['2003-02-31', '2015-02-29', '2016-13-01', '2016-00-10', '2016-06-32', '0000-01-01']) {
      const res = await gw.post(`/timeline/getTrips/${day}`, { user: TOKEN });
      expect(res.status, day).toBe(400);
      expect(res.body.error.message).toMatch(/day/);
    }
    expect((await gw.post('/timeline/getTrips/2016-02-29', { user: TOKEN })).status).toBe(200);
  });

  it('When local_date metrics name month 13, day 32 or a year out of range, then it is a 400 naming the field', async () => {
    const ask = (start_time: unknown, end_time: unknown = { year: 2016, month: 6, day: 20 }) =>
      gw.post('/result/metrics/local_date', {
        user: TOKEN,
        freq: 'DAILY',
        start_time,
        end_time,
        metric_list: ['count'],
        is_return_aggregate: false,
      });
    const cases: [unknown, RegExp][] = [
      [{ year: 2016, month: 13, day: 1 }, /start_time\.month/],
      [{ year: 2016, month: 6, day: 32 }, /start_time\.day/],
      [{ year: 2015, month: 2, day: 29 }, /start_time\.day/],
      [{ year: 99999, month: 1, day: 1 }, /start_time\.year/],
      [{ year: -3, month: 1, day: 1 }, /start_time\.year/],
      [{ year: 2016, month: 1.5 }, /start_time\.month/],
    ];
    for (const [start, message] of cases) {
      const res = await ask(start);
      expect(res.status, JSON.stringify(start)).toBe(400);
      expect(res.body.error.message).toMatch(message);
    }
    const backwards = await ask({ year: 2016, month: 6, day: 21 });
    expect(backwards.status).toBe(400);
    expect((await ask({ year: 2016, month: 6, day: 1 })).status).toBe(200);
    const badCards = await gw.post('/result/metrics/yyyy_mm_dd', {
      freq: 'D',
      start_time: '2016-02-30',
      end_time: '2016-03-14',
      metric_list: { count: ['mode_confirm'] },
      aggregate: true,
    });
    expect(badCards.status).toBe(400);
    expect(badCards.body.error.message).toMatch(/start_time/);
  });

  it('When metrics timestamps fall outside 0..1e10, then it is a 400 naming the field', async () => {
    const base = { user: TOKEN, freq: 'D', metric_list: ['count'], is_return_aggregate: false };
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ start_time: -5, end_time: DAY }, /start_time/],
      [{ start_time: DAY, end_time: 1e12 }, /end_time/],
      [{ start_time: DAY, end_time: 1e300 }, /end_time/],
      [{ start_time: '2016-06-15', end_time: DAY }, /start_time/],
    ];
    for (const [times, message] of cases) {
      const res = await gw.post('/result/metrics/timestamp', { ...base, ...times });
      expect(res.status, JSON.stringify(times)).toBe(400);
      expect(res.body.error.message).toMatch(message);
    }
  });

  it('When find_entries names an absurd end or a local date that does not exist, then it is a 400 naming the field', async () => {
    const big = await gw.post('/datastreams/find_entries/timestamp', {
      user: TOKEN,
      key_list: ['background/location'],
      start_time: 0,
      end_time: 1e11,
    });
    expect(big.status).toBe(400);
    expect(big.body.error.message).toMatch(/end_time/);
    const month13 = await gw.post('/datastreams/find_entries/local_date', {
      user: TOKEN,
      key_list: ['background/location'],
      from_local_date: { year: 2016, month: 13 },
      to_local_date: { year: 2016, month: 12 },
    });
    expect(month13.status).toBe(400);
    expect(month13.body.error.message).toMatch(/from_local_date\.month/);
    // The current app sends start_time = -10 before anything is processed: "from the beginning", not an error.
    const fromStart = await gw.post('/datastreams/find_entries/timestamp', {
      user: TOKEN,
      key_list: ['background/location'],
      start_time: -10,
      end_time: DAY,
    });
    expect(fromStart.status).toBe(200);
  });
});

describe('find_entries: bounded results', () => {
  const TOKEN = 'finder@example.org';
  let uuid: string;
  let times: number[];
  beforeAll(async () => {
    uuid = await register(TOKEN);
    // 1,200 entries over about three days: more than the test's limit of 500.
    times = await seedLocations(env.cql, uuid, DAY, 1_200, 200);
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

  it('When more entries match than the limit, then it is a 400 naming the limit, never a silently cut list', async () => {
    const all = await find({});
    expect(all.status).toBe(400);
    expect(all.body.error.message).toMatch(/500/);
    expect(all.body.error.limit).toBe(FIND_MAX);
    const sampledTooMuch = await find({ max_entries: 100, trunc_method: 'sample' });
    expect(sampledTooMuch.status).toBe(400);
    // Within the limit, sample is e-mission's: every (len // n + 1)-th entry.
    const within = await find({ end_time: times[399]!, max_entries: 100, trunc_method: 'sample' });
    expect(within.status).toBe(200);
    expect(writeTimes(within)).toEqual(times.slice(0, 400).filter((_, i) => i % 5 === 0));
  });

  it('When max_entries is asked with first or last, then only those are read, the newest for last, in time order', async () => {
    resetReads();
    const first = await find({ max_entries: 10, trunc_method: 'first' });
    expect(first.status).toBe(200);
    expect(writeTimes(first)).toEqual(times.slice(0, 10));
    // A page of at most 10 rows per partition opened: nowhere near the 1,200 stored.
    expect(reads.rows).toBeLessThan(200);

    resetReads();
    const last = await find({ max_entries: 10, trunc_method: 'last' });
    expect(last.status).toBe(200);
    expect(writeTimes(last)).toEqual(times.slice(-10));
    expect(reads.rows).toBeLessThan(200);
    expect(reads.maxInFlight).toBeLessThanOrEqual(4);

    const byDataTs = await find({ key_time: 'data.ts', max_entries: 3, trunc_method: 'last' });
    expect(byDataTs.body.phone_data.map((e: any) => e.data.ts)).toEqual(times.slice(-3).map((t) => t - 1));
  });

  it('When key_list or key_time holds names of Object properties, then they are ordinary unknown keys', async () => {
    for (const key_list of [['constructor'], ['__proto__'], ['toString', 'hasOwnProperty', 'valueOf']]) {
      const res = await find({ key_list, max_entries: 5, trunc_method: 'first' });
      expect(res.status, JSON.stringify(key_list)).toBe(200);
      expect(res.body.phone_data).toEqual([]);
    }
    for (const key_time of ['constructor', '__proto__', 'data.constructor', 'metadata.__proto__']) {
      const res = await find({ key_list: ['analysis/composite_trip', 'background/location'], key_time });
      expect(res.status, key_time).toBe(200);
      expect(res.body.phone_data).toEqual([]);
    }
  });

  it('When a key_list is absurdly long, then it is a 400 naming the limit', async () => {
    const res = await find({ key_list: Array.from({ length: 5000 }, (_, i) => `k${i}`) });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/key_list/);
  });
});

describe('aggregates: who may ask, and k-anonymity', () => {
  const D2 = DAY + 30 * 86_400;
  const aggregateCall = (extra: Record<string, unknown> = {}) => ({
    freq: 'D',
    start_time: D2,
    end_time: D2 + 86_399,
    metric_list: ['count', 'distance'],
    is_return_aggregate: true,
    ...extra,
  });
  beforeAll(async () => {
    // Five people walk that day; one of them also cycles.
    const walkers = await Promise.all(['w1', 'w2', 'w3', 'w4', 'w5'].map((u) => register(`${u}@example.org`)));
    await writeAll(
      env.cql,
      sectionRows([
        ...walkers.map((userId, i) => ({ userId, startTs: D2 + 3600 * (i + 1), mode: 'ON_FOOT', distance: 1000 })),
        { userId: walkers[0]!, startTs: D2 + 50_000, mode: 'BICYCLING', distance: 8400 },
      ]),
    );
  });

  it('When an aggregate bin or mode has fewer than k users, then its values are withheld; with k users they show', async () => {
    const res = await gw.post('/result/metrics/timestamp', aggregateCall());
    expect(res.status).toBe(200);
    const [count, distance] = res.body.aggregate_metrics;
    expect(count[0]).toMatchObject({ ts: D2, nUsers: 5, ON_FOOT: 5 });
    expect(distance[0]).toMatchObject({ ON_FOOT: 5000 });
    // The one cyclist is one person: no "BICYCLING: 8400" for anyone to read.
    expect(Object.keys(distance[0])).not.toContain('BICYCLING');
  });

  it('When aggregate_call_auth is user_only, then an aggregate needs a registered user (403 otherwise)', async () => {
    await withGateway(env, { aggregateCallAuth: 'user_only' }, async (strict) => {
      const anonymous = await strict.post('/result/metrics/timestamp', aggregateCall());
      expect(anonymous.status).toBe(403);
      const stranger = await strict.post('/result/metrics/timestamp', aggregateCall({ user: 'stranger@example.org' }));
      expect(stranger.status).toBe(403);
      const cards = await strict.post('/result/metrics/yyyy_mm_dd', { aggregate: true, metric_list: ['count'] });
      expect(cards.status).toBe(403);
      const member = await strict.post('/result/metrics/timestamp', aggregateCall({ user: 'w1@example.org' }));
      expect(member.status).toBe(200);
      expect(member.body.aggregate_metrics[0][0]).toMatchObject({ nUsers: 5 });
    });
  });

  it('When aggregate_call_auth is never, then aggregate calls are refused and a user still reads their own metrics', async () => {
    await withGateway(env, { aggregateCallAuth: 'never' }, async (closed) => {
      const anonymous = await closed.post('/result/metrics/timestamp', aggregateCall());
      expect(anonymous.status).toBe(404);
      expect(anonymous.body.error.message).toMatch(/aggregate/);
      const explicit = await closed.post(
        '/result/metrics/timestamp',
        aggregateCall({ user: 'w1@example.org', aggregate: true }),
      );
      expect(explicit.status).toBe(404);
      // The classic app's own call asks for the aggregate alongside: it gets its own metrics, no aggregate.
      const classic = await closed.post('/result/metrics/timestamp', aggregateCall({ user: 'w1@example.org' }));
      expect(classic.status).toBe(200);
      expect(classic.body.user_metrics[0][0]).toMatchObject({ ON_FOOT: 1, BICYCLING: 1 });
      expect(classic.body.aggregate_metrics).toBeUndefined();
      const cards = await closed.post('/result/metrics/yyyy_mm_dd', { aggregate: true, metric_list: ['count'] });
      expect(cards.status).toBe(404);
      const own = await closed.post(
        '/result/metrics/timestamp',
        aggregateCall({ user: 'w1@example.org', is_return_aggregate: false }),
      );
      expect(own.status).toBe(200);
      expect(own.body.user_metrics[1][0]).toMatchObject({ ON_FOOT: 1000, BICYCLING: 8400 });
      expect(own.body.aggregate_metrics).toBeUndefined();
    });
  });
});
