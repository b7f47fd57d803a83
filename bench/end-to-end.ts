/**
 * End to end: from the put that completes a user's day to that day's trips served by getTrips, then from the put of
 * a label to that label inside its composite trip, with the gateway, a converter and a trip builder running as
 * separate processes, as `npm start` runs them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCassandraClient } from '../shared/cassandra/index.js';
import type { Config } from '../shared/config/index.js';
import { toObservations, type TimeseriesLike } from '../services/trip-builder/domain/observations.js';
import { buildTrips } from '../services/trip-builder/domain/timeline/build-trips.js';
import { tripLocalDate } from '../services/trip-builder/domain/diary/trip-geojson.js';
import type { PhoneEntry } from '../test/helpers/phone-entries.js';
import {
  cpuMs,
  gatewayHealthy,
  inParallel,
  jsonPoster,
  type JsonPost,
  percentile,
  profilingArgs,
  residentMb,
  serviceArgs,
  sleep,
  tripsServed,
} from './load.js';

export interface EndToEndFigures {
  users: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  /**
   * Labels arriving at a steady rate (`pacedLabelsPerS`, at random moments as independent people label): from the
   * start of a label's put to the first read of its composite trip that shows it.
   */
  pacedLabelsPerS: number;
  pacedP50Ms: number;
  pacedP95Ms: number;
  pacedMaxMs: number;
  /**
   * The same with 32 users labelling back to back, which saturates the cores: its labels/s is the ceiling, and its
   * latencies are that width over that ceiling (Little's law), a property of the width as much as of the server.
   */
  labelP50Ms: number;
  labelP95Ms: number;
  labelMaxMs: number;
  tripBuilderCpuMsPerUserDay: number;
  /**
   * CPU (user + system) per 1,000 entries pushed, by process, from the first put of the day to the last day's trips
   * served (the trips polls included): the cost of ingesting and building, whose curve over `users` says whether the
   * cost per entry stays flat as the load grows.
   */
  ingestCpuMsPer1000Entries: Record<string, number>;
  /** Entries pushed in the day load. */
  entries: number;
  /**
   * CPU (user + system) each process spent per label during the label phase, polls included: where a label's
   * time goes when the two cores are saturated.
   */
  labelCpuMs: Record<string, number>;
  /** Labels made visible per second over the label phase. */
  labelsPerS: number;
  /**
   * Cassandra's work per label over the label phase, from its thread pools' completed tasks: CQL requests, local
   * reads and mutations, and compactions (background work the phase shares the cores with).
   */
  labelCassandraTasks: Record<string, number>;
  /**
   * How long the stack took to settle after the day loads before the label phase began (compactions of the bulk
   * load, the trip builder's last documents), and whether it did within the bound.
   */
  settleS: number;
  settled: boolean;
  tripBuilderPeakRssMb: number;
  gatewayPeakRssMb: number;
  converterPeakRssMb: number;
}

export interface RealDay {
  entries: PhoneEntry[];
  day: string;
  trips: number;
}

/** The real days, each with its trip-local date and the number of trips the builder finds in it. */
export function loadDays(dataDir: string): RealDay[] {
  const dir = join(dataDir, 'emission-real-days');
  const names = [
    'shankari_2015-aug-27',
    'shankari_2015-08-23',
    'shankari_2016-08-10',
    'gabe_2016-06-15',
    'iphone_2016-02-22',
  ];
  return names.map((name) => {
    const raw = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as (TimeseriesLike & PhoneEntry)[];
    const trips = buildTrips(toObservations(raw), undefined).trips;
    const entries = raw
      .map(({ metadata, data }) => ({ metadata, data }) as PhoneEntry)
      .sort((a, b) => Number(a.metadata['write_ts']) - Number(b.metadata['write_ts']));
    return { entries, day: tripLocalDate(trips[0]!), trips: trips.length };
  });
}

/** Cassandra's thread pools the label figures count, by the names its `system_views.thread_pools` gives them. */
const CASSANDRA_POOLS: Record<string, string> = {
  'Native-Transport-Requests': 'requests',
  ReadStage: 'reads',
  MutationStage: 'mutations',
  CompactionExecutor: 'compactions',
  MemtableFlushWriter: 'flushes',
};

/** Completed tasks so far of the Cassandra node's pools in CASSANDRA_POOLS. */
async function cassandraTasks(config: Config): Promise<Record<string, number>> {
  const client = createCassandraClient({ ...config.cassandra, keyspace: undefined });
  try {
    const rs = await client.execute('SELECT name, completed_tasks FROM system_views.thread_pools');
    const out: Record<string, number> = {};
    for (const row of rs.rows) {
      const name = CASSANDRA_POOLS[String(row['name'])];
      if (name) out[name] = Number(row['completed_tasks']);
    }
    return out;
  } finally {
    await client.shutdown();
  }
}

/** Below this much CPU (all processes together, per second of wall time) the stack counts as idle. */
const IDLE_CPU_MS_PER_S = 200;

/**
 * Waits until the processes have been idle for three seconds in a row (at most three minutes). A bulk load of a
 * thousand days leaves Cassandra compacting and flushing for a while; labels measured inside that tail would
 * measure the load's leftovers, not a label's own path. The wait is reported beside the figures.
 */
async function settle(pids: Record<string, number | undefined>): Promise<{ seconds: number; settled: boolean }> {
  const started = performance.now();
  const total = (): number => {
    let sum = 0;
    for (const pid of Object.values(pids)) sum += cpuMs(pid);
    return sum;
  };
  let quietSeconds = 0;
  while (performance.now() - started < 180_000) {
    const before = total();
    await sleep(1000);
    quietSeconds = total() - before < IDLE_CPU_MS_PER_S ? quietSeconds + 1 : 0;
    if (quietSeconds >= 3) return { seconds: Math.round((performance.now() - started) / 1000), settled: true };
  }
  return { seconds: 180, settled: false };
}

export async function benchEndToEnd(
  root: string,
  config: Config,
  env: NodeJS.ProcessEnv,
  gatewayUrl: string,
  days: readonly RealDay[],
  users: number,
  /** The servers' processes (kafka, cassandra, registry), whose CPU is counted too. */
  serverPids: Record<string, number | undefined> = {},
  /**
   * The rate of the paced label phase. A study's evening peak: a thousand participants each labelling five trips
   * within the same hour is 1.4 labels/s; the default is seven times that.
   */
  labelsPerS = 10,
): Promise<EndToEndFigures> {
  const start = (script: string, args: string[]): ChildProcess =>
    spawn(process.execPath, [...profilingArgs(), ...serviceArgs(root, script), ...args], {
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  const procs = [
    start('services/gateway/main.ts', []),
    start('services/converter/main.ts', ['0']),
    start('services/trip-builder/main.ts', ['0']),
  ];
  const builder = procs[2]!;
  // Peak resident memory of gateway, converter and trip builder, sampled every 200 ms.
  const peakRss = [0, 0, 0];
  const sampler = setInterval(() => {
    procs.forEach((p, i) => (peakRss[i] = Math.max(peakRss[i]!, residentMb(p.pid) ?? 0)));
  }, 200);
  const post: Post = jsonPoster(gatewayUrl);
  try {
    await gatewayHealthy(gatewayUrl);
    const pids: Record<string, number | undefined> = {
      gateway: procs[0]!.pid,
      converter: procs[1]!.pid,
      'trip builder': builder.pid,
      ...serverPids,
    };
    const cpuOf = () => Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMs(pid)]));
    const ingestCpuAtStart = cpuOf();
    const cpuBefore = cpuMs(builder.pid);
    const tokens = Array.from({ length: users }, (_, i) => `e2e-${config.kafka.topicPrefix}${i}@itinera.org`);
    // Each user's day minus its last tenth: the phone synced during the day. The pipeline catches up on it first.
    await inParallel(tokens, 8, async (token, i) => {
      const d = days[i % days.length]!;
      await post('/profile/create', { user: token });
      const head = d.entries.slice(0, Math.floor(d.entries.length * 0.9));
      for (let k = 0; k < head.length; k += 2000) {
        const r = await post('/usercache/put', { user: token, phone_to_server: head.slice(k, k + 2000) });
        if (r.status !== 200) throw new Error(`bench: put answered ${r.status}`);
      }
    });
    await inParallel(tokens, 8, async (token, i) => {
      const d = days[i % days.length]!;
      const until = Date.now() + 600_000;
      while (Date.now() < until) {
        const r = await post(`/timeline/getTrips/${d.day}`, { user: token });
        if (Array.isArray(r.json['timeline']) && r.json['timeline'].length > 0) return;
        await sleep(250);
      }
    });
    // The evening sync that completes the day, spread over a few seconds as phones sync independently.
    const latencies: number[] = [];
    await inParallel(tokens, 32, async (token, i) => {
      const d = days[i % days.length]!;
      const tail = d.entries.slice(Math.floor(d.entries.length * 0.9));
      const r = await post('/usercache/put', { user: token, phone_to_server: tail });
      if (r.status !== 200) throw new Error(`bench: put answered ${r.status}`);
      latencies.push(await tripsServed(post, token, d, { since: performance.now(), pollMs: 100, timeoutMs: 600_000 }));
    });
    // Taken before the labels, so the figures stay the cost of ingesting and building a day.
    const tripBuilderCpuMs = cpuMs(builder.pid) - cpuBefore;
    const ingestCpuAtEnd = cpuOf();
    const entries = tokens.reduce((sum, _, i) => sum + days[i % days.length]!.entries.length, 0);
    const ingestCpuMsPer1000Entries = Object.fromEntries(
      Object.entries(ingestCpuAtEnd).map(([name, ms]) => [
        name,
        Math.round(((ms - ingestCpuAtStart[name]!) / entries) * 1000 * 10) / 10,
      ]),
    );
    const sorted = latencies.sort((a, b) => a - b);
    const targets = await labelTargets(post, tokens, days);
    const { seconds: settleS, settled } = await settle(pids);
    const paced = (await pacedLabelLatencies(post, tokens, targets, labelsPerS)).sort((a, b) => a - b);
    await settle(pids);
    const cpuAtStart = cpuOf();
    const tasksAtStart = await cassandraTasks(config);
    const labelsStarted = performance.now();
    const labels = (await labelLatencies(post, tokens, targets)).sort((a, b) => a - b);
    const labelPhaseS = (performance.now() - labelsStarted) / 1000;
    const tasksAtEnd = await cassandraTasks(config);
    const labelCassandraTasks = Object.fromEntries(
      Object.entries(tasksAtEnd).map(([pool, n]) => [
        pool,
        Math.round(((n - (tasksAtStart[pool] ?? 0)) / users) * 10) / 10,
      ]),
    );
    const labelCpuMs = Object.fromEntries(
      Object.entries(pids).map(([name, pid]) => [name, Math.round((cpuMs(pid) - cpuAtStart[name]!) / users)]),
    );
    return {
      users,
      p50Ms: Math.round(percentile(sorted, 50)),
      p95Ms: Math.round(percentile(sorted, 95)),
      maxMs: Math.round(sorted[sorted.length - 1] ?? 0),
      pacedLabelsPerS: labelsPerS,
      pacedP50Ms: Math.round(percentile(paced, 50)),
      pacedP95Ms: Math.round(percentile(paced, 95)),
      pacedMaxMs: Math.round(paced[paced.length - 1] ?? 0),
      labelP50Ms: Math.round(percentile(labels, 50)),
      labelP95Ms: Math.round(percentile(labels, 95)),
      labelMaxMs: Math.round(labels[labels.length - 1] ?? 0),
      tripBuilderCpuMsPerUserDay: Math.round(tripBuilderCpuMs / users),
      ingestCpuMsPer1000Entries,
      entries,
      labelCpuMs,
      labelsPerS: Math.round((users / labelPhaseS) * 10) / 10,
      labelCassandraTasks,
      settleS,
      settled,
      tripBuilderPeakRssMb: peakRss[2]!,
      gatewayPeakRssMb: peakRss[0]!,
      converterPeakRssMb: peakRss[1]!,
    };
  } finally {
    clearInterval(sampler);
    for (const p of procs) p.kill('SIGTERM');
    await Promise.all(procs.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.once('exit', r)))));
  }
}

/** The benchmark table's rows for the end-to-end runs, one run per number of users. */
export function endToEndRows(runs: readonly EndToEndFigures[]): string[] {
  const perProcess = (figures: Record<string, number>, unit: string) =>
    Object.entries(figures)
      .map(([name, value]) => `${name} ${value}${unit}`)
      .join(', ');
  const totalCpu = (e: EndToEndFigures) =>
    Math.round(Object.values(e.ingestCpuMsPer1000Entries).reduce((a, b) => a + b, 0) * 10) / 10;
  return [
    ...runs.map(
      (e) =>
        `| put completing a day → its trips served, ${e.users} users | p50 ${e.p50Ms} ms, p95 ${e.p95Ms} ms, max ${e.maxMs} ms | e-mission: next hourly batch | |`,
    ),
    ...runs.flatMap((e) => [
      `| a label's put → visible in its composite trip, ${e.users} users, ${e.pacedLabelsPerS} labels/s arriving at random | p50 ${e.pacedP50Ms} ms, p95 ${e.pacedP95Ms} ms, max ${e.pacedMaxMs} ms (after ${e.settleS} s for the load to settle${e.settled ? '' : ', not settled'}) | e-mission: next hourly batch | |`,
      `| labels at saturation, ${e.users} users: 32 users labelling back to back | ${e.labelsPerS} labels/s; put → visible p50 ${e.labelP50Ms} ms, p95 ${e.labelP95Ms} ms, max ${e.labelMaxMs} ms (32 in flight / labels/s, by Little's law) | | |`,
    ]),
    ...runs.map(
      (e) =>
        `| CPU per label, polls included (${e.users} users) | ${perProcess(e.labelCpuMs, ' ms')}; Cassandra tasks per label: ${Object.entries(
          e.labelCassandraTasks,
        )
          .map(([pool, n]) => `${n} ${pool}`)
          .join(', ')} | | |`,
    ),
    ...runs.map(
      (e) =>
        `| CPU ms per 1,000 entries, a day's load (${e.users} users, ${e.entries} entries, trips polls included) | ${totalCpu(e)} ms in all: ${perProcess(e.ingestCpuMsPer1000Entries, '')} | ${runs[0] === e ? "the cost curve's first point" : `${(totalCpu(e) / totalCpu(runs[0]!)).toFixed(2)} × the cost at ${runs[0]!.users} users`} | |`,
    ),
    ...runs.map(
      (e) =>
        `| trip builder CPU per user-day (${e.users} users) | ${e.tripBuilderCpuMsPerUserDay} ms; peak RSS: trip builder ${e.tripBuilderPeakRssMb} MB, gateway ${e.gatewayPeakRssMb} MB, converter ${e.converterPeakRssMb} MB | | |`,
    ),
  ];
}

type Post = JsonPost;

interface Composite {
  metadata: { origin_key?: string; time_zone?: string };
  data: { start_ts: number; end_ts: number; user_input?: Record<string, unknown> };
}

/** A user's composite trips whose `data.end_ts` is in [from, to], read as the app reads them. */
async function composites(post: Post, user: string, from: number, to: number): Promise<Composite[]> {
  const r = await post('/datastreams/find_entries/timestamp', {
    user,
    key_list: ['analysis/composite_trip'],
    key_time: 'data.end_ts',
    start_time: from,
    end_time: to,
  });
  if (r.status !== 200) throw new Error(`bench: find_entries answered ${r.status}`);
  return r.json['phone_data'] as Composite[];
}

/** The trips of a user's day (untracked periods are composites too, but a mode label is not meant for them). */
async function tripsOf(post: Post, user: string, trips: number): Promise<Composite[]> {
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    const found = (await composites(post, user, 0, 2_000_000_000)).filter(
      (c) => c.metadata.origin_key !== 'analysis/confirmed_untracked',
    );
    if (found.length >= trips) return found.sort((a, b) => a.data.start_ts - b.data.start_ts);
    await sleep(250);
  }
  throw new Error('bench: composite trips never served');
}

/** A mode label as the phone writes it: a `message` entry with the trip's own times, written now. */
function modeConfirm(trip: Composite, label: string): PhoneEntry {
  return {
    metadata: {
      key: 'manual/mode_confirm',
      type: 'message',
      platform: 'android',
      write_ts: Date.now() / 1000,
      time_zone: trip.metadata.time_zone ?? 'UTC',
    },
    data: { start_ts: trip.data.start_ts, end_ts: trip.data.end_ts, label },
  };
}

/** The trip each user labels (a different one from user to user), read before any clock starts. */
async function labelTargets(post: Post, tokens: readonly string[], days: readonly RealDay[]): Promise<Composite[]> {
  const targets: Composite[] = [];
  await inParallel(tokens, 8, async (token, i) => {
    const trips = await tripsOf(post, token, days[i % days.length]!.trips);
    targets[i] = trips[i % trips.length]!;
  });
  return targets;
}

/**
 * A user labels its trip, then reads that trip until the label shows: the time from the start of the put to that
 * read. The reads are load of their own on the gateway and Cassandra, so they come every 150 ms and ask only for
 * that trip (a range of two seconds around its end, not the whole day).
 */
async function labelOnce(post: Post, token: string, trip: Composite, label: string): Promise<number> {
  const started = performance.now();
  const r = await post('/usercache/put', { user: token, phone_to_server: [modeConfirm(trip, label)] });
  if (r.status !== 200) throw new Error(`bench: put answered ${r.status}`);
  for (;;) {
    const found = await composites(post, token, trip.data.end_ts - 1, trip.data.end_ts + 1);
    if (found.some((c) => c.data.start_ts === trip.data.start_ts && c.data.user_input?.['mode_confirm'] === label))
      return performance.now() - started;
    if (performance.now() - started > 120_000) throw new Error('bench: a label never reached its composite trip');
    await sleep(150);
  }
}

/**
 * Every user labels its trip once, the labels arriving `perSecond` on average at random moments (a Poisson
 * process, seeded so runs compare), each whether or not earlier ones are visible yet: people label independently.
 */
async function pacedLabelLatencies(
  post: Post,
  tokens: readonly string[],
  targets: readonly Composite[],
  perSecond: number,
): Promise<number[]> {
  const random = seededRandom(20261124);
  const latencies: Promise<number>[] = [];
  let at = performance.now();
  for (let i = 0; i < tokens.length; i++) {
    at += (-Math.log(1 - random()) / perSecond) * 1000;
    await sleep(Math.max(0, at - performance.now()));
    latencies.push(labelOnce(post, tokens[i]!, targets[i]!, `paced-${i}`));
  }
  return Promise.all(latencies);
}

/** Every user labels its trip again, 32 users at a time back to back: the saturating run. */
async function labelLatencies(post: Post, tokens: readonly string[], targets: readonly Composite[]): Promise<number[]> {
  const latencies: number[] = [];
  await inParallel(tokens, 32, async (token, i) => {
    latencies.push(await labelOnce(post, token, targets[i]!, `bench-${i}`));
  });
  return latencies;
}

/** A small seeded generator of uniform numbers in [0, 1) (mulberry32). */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
