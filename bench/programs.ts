/**
 * Many programs on one stack against one program of the same size (BENCH_PARTS=programs): the same users' real days
 * pushed through one gateway, one converter and one trip builder, once as one program of BENCH_PROGRAM_USERS users
 * (default 10,000) and once as BENCH_PROGRAMS programs (default 20) sharing them. Each user's day is one put; the
 * user's phone then reads getTrips until the day's trips are served. What is compared, in the same run: entries per
 * second from the first put to the last user served, and put → trips served p95. Each run has a fresh keyspace and
 * topics with its programs saved before the first put, so the gateway's program admission is on the path of both;
 * the layouts run one, many, many, one and are compared by their means.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createCassandraClient, createCql } from '../shared/cassandra/index.js';
import type { Config } from '../shared/config/index.js';
import { createProgramConfigsTable } from '../shared/tables/index.js';
import { createProgramManager } from '../shared/programs/manage-programs.js';
import type { RealDay } from './end-to-end.js';
import {
  gatewayHealthy,
  inParallel,
  jsonPoster,
  percentile,
  profilingArgs,
  residentMb,
  serviceArgs,
  tripsServed,
} from './load.js';

/** Users pushing and polling at once, as the end-to-end part's evening sync does. */
const PHONES = 32;

/**
 * How often a phone reads its trips while waiting for them. A phone reads about once a second at most; reading every
 * 100 ms made 32 phones' reads (each a whole composite day once built) a large part of what the two cores did, and the
 * full-size run slow down to a third of the pipeline's pace. The latency figures are therefore within a second.
 */
const POLL_MS = 1000;

export interface ProgramsLayoutFigures {
  programs: number;
  users: number;
  entries: number;
  /** From the first put until the last user's trips were served. */
  seconds: number;
  entriesPerS: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  /** Peak resident memory of the services, by process. */
  peakRssMb: Record<string, number>;
}

export interface ProgramsFigures {
  /** Each layout's runs, in the order they ran (benchPrograms). */
  runs: ProgramsLayoutFigures[];
  one: ProgramsLayoutFigures;
  many: ProgramsLayoutFigures;
  /** The servers' resident memory after the runs: one stack, whatever the number of programs. */
  serversRssMb: Record<string, number | null>;
}

/** A layout: where it runs and how its users are split into programs. */
export interface ProgramsLayout {
  config: Config;
  env: NodeJS.ProcessEnv;
  programs: number;
}

async function savePrograms(config: Config, names: readonly string[]): Promise<void> {
  const client = createCassandraClient({ ...config.cassandra });
  await client.connect();
  try {
    const manager = createProgramManager(createProgramConfigsTable(createCql(client)));
    for (const program of names)
      await manager.create({
        program,
        document: JSON.stringify({ version: 1, min_app_version: '1.9.0', opcode: { autogen: true } }),
        by: 'bench',
      });
  } finally {
    await client.shutdown();
  }
}

async function runLayout(
  root: string,
  layout: ProgramsLayout,
  gatewayUrl: string,
  days: readonly RealDay[],
  users: number,
): Promise<ProgramsLayoutFigures> {
  const names = Array.from({ length: layout.programs }, (_, p) => `bench-${p}`);
  await savePrograms(layout.config, names);
  const start = (script: string, args: string[]): ChildProcess =>
    spawn(process.execPath, [...profilingArgs(), ...serviceArgs(root, script), ...args], {
      env: layout.env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  const procs = {
    gateway: start('services/gateway/main.ts', []),
    converter: start('services/converter/main.ts', ['0']),
    'trip builder': start('services/trip-builder/main.ts', ['0']),
  };
  const peakRssMb: Record<string, number> = { gateway: 0, converter: 0, 'trip builder': 0 };
  const sampler = setInterval(() => {
    for (const [name, p] of Object.entries(procs)) peakRssMb[name] = Math.max(peakRssMb[name]!, residentMb(p.pid) ?? 0);
  }, 500);
  const post = jsonPoster(gatewayUrl);
  try {
    await gatewayHealthy(gatewayUrl);
    // Users are dealt to programs in turn, so every program gets the same mix of days.
    const tokens = Array.from(
      { length: users },
      (_, i) => `nrelop_${names[i % names.length]}_default_${layout.config.kafka.topicPrefix.replace(/\W/g, '')}u${i}`,
    );
    // Registered before the clock starts, as many at a time as phones push: one at a time, 10,000 take 15 minutes.
    await inParallel(tokens, PHONES, async (token) => {
      const created = await post('/profile/create', { user: token });
      if (created.status !== 200) throw new Error(`bench: profile/create answered ${created.status}`);
    });
    const dayOf = (i: number) => days[i % days.length]!;
    const latencies: number[] = [];
    const t0 = performance.now();
    // A full-size layout runs for tens of minutes: its pace is printed so a run can be judged (or stopped) early.
    const progress = setInterval(() => {
      const s = Math.round((performance.now() - t0) / 1000);
      const sorted = [...latencies].sort((a, b) => a - b);
      process.stdout.write(
        `bench: ${layout.programs} program(s), ${s} s: ${latencies.length} of ${users} users served, p95 so far ${Math.round(percentile(sorted, 95))} ms\n`,
      );
    }, 60_000);
    try {
      await inParallel(tokens, PHONES, async (token, i) => {
        const day = dayOf(i);
        const put = await post('/usercache/put', {
          user: token,
          phone_to_server: day.entries,
          deployment_config_version: 1,
          app_version: '2.1.3',
        });
        if (put.status !== 200) throw new Error(`bench: put answered ${put.status}`);
        latencies.push(
          await tripsServed(post, token, day, { since: performance.now(), pollMs: POLL_MS, timeoutMs: 1_800_000 }),
        );
      });
    } finally {
      clearInterval(progress);
    }
    const seconds = (performance.now() - t0) / 1000;
    const entries = tokens.reduce((sum, _, i) => sum + dayOf(i).entries.length, 0);
    const sorted = latencies.sort((a, b) => a - b);
    return {
      programs: layout.programs,
      users,
      entries,
      seconds: Math.round(seconds),
      entriesPerS: Math.round(entries / seconds),
      p50Ms: Math.round(percentile(sorted, 50)),
      p95Ms: Math.round(percentile(sorted, 95)),
      maxMs: Math.round(sorted[sorted.length - 1] ?? 0),
      peakRssMb,
    };
  } finally {
    clearInterval(sampler);
    const list = Object.values(procs);
    for (const p of list) p.kill('SIGTERM');
    await Promise.all(list.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.once('exit', r)))));
  }
}

/** The mean of a layout's runs (peak memory: the highest). */
function meanOf(list: readonly ProgramsLayoutFigures[]): ProgramsLayoutFigures {
  const first = list[0]!;
  const mean = (pick: (f: ProgramsLayoutFigures) => number) =>
    Math.round(list.reduce((sum, f) => sum + pick(f), 0) / list.length);
  return {
    programs: first.programs,
    users: first.users,
    entries: first.entries,
    seconds: mean((f) => f.seconds),
    entriesPerS: mean((f) => f.entriesPerS),
    p50Ms: mean((f) => f.p50Ms),
    p95Ms: mean((f) => f.p95Ms),
    maxMs: Math.max(...list.map((f) => f.maxMs)),
    peakRssMb: Object.fromEntries(
      Object.keys(first.peakRssMb).map((k) => [k, Math.max(...list.map((f) => f.peakRssMb[k] ?? 0))]),
    ),
  };
}

/**
 * Runs the layouts one, many, many, one (each on its own keyspace), so whatever a run leaves behind for the next
 * (compaction, a warmer cache) weighs on both layouts alike, and compares their means. With `once`, one then many:
 * half the time, and whatever the first run leaves behind weighs on the many-program layout only, so a figure within
 * bounds there is within bounds with the order effect against it.
 */
export async function benchPrograms(
  root: string,
  layout: (programs: number, round: number) => Promise<ProgramsLayout>,
  programs: number,
  gatewayUrl: string,
  days: readonly RealDay[],
  users: number,
  serversRss: () => Record<string, number | null>,
  { once = false } = {},
): Promise<ProgramsFigures> {
  const runs: ProgramsLayoutFigures[] = [];
  for (const [round, n] of (once ? [1, programs] : [1, programs, programs, 1]).entries())
    runs.push(await runLayout(root, await layout(n, round), gatewayUrl, days, users));
  return {
    runs,
    one: meanOf(runs.filter((r) => r.programs === 1)),
    many: meanOf(runs.filter((r) => r.programs !== 1)),
    serversRssMb: serversRss(),
  };
}

/** Each run's figures, where a layout's row is the mean of several. */
function meanNote(runs: readonly ProgramsLayoutFigures[]): string {
  if (runs.length < 2) return '';
  return ` (mean of ${runs.length} runs: ${runs.map((r) => `${r.entriesPerS}/s p95 ${r.p95Ms} ms`).join(', ')})`;
}

/** The benchmark table's rows: the many-program layout against the one-program layout of the same run. */
export function programsRows(f: ProgramsFigures): string[] {
  const row = (l: ProgramsLayoutFigures) =>
    `${l.entriesPerS} entries/s (${l.entries.toLocaleString('en')} entries in ${l.seconds} s); put → trips served p50 ${l.p50Ms} ms, p95 ${l.p95Ms} ms, max ${l.maxMs} ms${meanNote(f.runs.filter((r) => r.programs === l.programs))}`;
  const per = f.many.users / f.many.programs;
  const services = Object.values(f.many.peakRssMb).reduce((a, b) => a + b, 0);
  const servers = Object.values(f.serversRssMb).reduce<number>((a, b) => a + (b ?? 0), 0);
  return [
    `| ${f.one.users.toLocaleString('en')} users as 1 program | ${row(f.one)} | | |`,
    `| the same users as ${f.many.programs} programs × ${per.toLocaleString('en')} | ${row(f.many)} | 1 program, same run | throughput ${(f.many.entriesPerS / f.one.entriesPerS).toFixed(2)}, p95 ${(f.many.p95Ms / f.one.p95Ms).toFixed(2)} |`,
    `| memory of ${f.many.programs} programs on one stack | ${services + servers} MB (services ${services} MB peak, servers ${servers} MB) | ${f.many.programs} single-program stacks: ${f.many.programs} × ${services + servers} = ${(f.many.programs * (services + servers)).toLocaleString('en')} MB | ${(1 / f.many.programs).toFixed(2)} |`,
  ];
}
