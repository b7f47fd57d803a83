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
  sleep,
} from './load.js';

/** Users pushing and polling at once, as the end-to-end part's evening sync does. */
const PHONES = 32;

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
  /** Each layout's runs, in the order one, many, many, one: an order effect (compaction left by the run before) weighs on both alike. */
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
    for (const token of tokens) {
      const created = await post('/profile/create', { user: token });
      if (created.status !== 200) throw new Error(`bench: profile/create answered ${created.status}`);
    }
    const dayOf = (i: number) => days[i % days.length]!;
    const latencies: number[] = [];
    const t0 = performance.now();
    await inParallel(tokens, PHONES, async (token, i) => {
      const day = dayOf(i);
      const put = await post('/usercache/put', {
        user: token,
        phone_to_server: day.entries,
        deployment_config_version: 1,
        app_version: '2.1.3',
      });
      if (put.status !== 200) throw new Error(`bench: put answered ${put.status}`);
      const answered = performance.now();
      for (;;) {
        const t = await post(`/timeline/getTrips/${day.day}`, { user: token });
        if (Array.isArray(t.json['timeline']) && t.json['timeline'].length >= day.trips) break;
        if (performance.now() - answered > 1_800_000) throw new Error('bench: trips never served');
        await sleep(100);
      }
      latencies.push(performance.now() - answered);
    });
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

/** The mean of two runs of a layout (peak memory: the higher). */
function meanOf(a: ProgramsLayoutFigures, b: ProgramsLayoutFigures): ProgramsLayoutFigures {
  const mean = (x: number, y: number) => Math.round((x + y) / 2);
  return {
    programs: a.programs,
    users: a.users,
    entries: a.entries,
    seconds: mean(a.seconds, b.seconds),
    entriesPerS: mean(a.entriesPerS, b.entriesPerS),
    p50Ms: mean(a.p50Ms, b.p50Ms),
    p95Ms: mean(a.p95Ms, b.p95Ms),
    maxMs: Math.max(a.maxMs, b.maxMs),
    peakRssMb: Object.fromEntries(
      Object.keys(a.peakRssMb).map((k) => [k, Math.max(a.peakRssMb[k] ?? 0, b.peakRssMb[k] ?? 0)]),
    ),
  };
}

/**
 * Runs the layouts one, many, many, one (each on its own keyspace), so whatever a run leaves behind for the next
 * (compaction, a warmer cache) weighs on both layouts alike, and compares their means.
 */
export async function benchPrograms(
  root: string,
  layout: (programs: number, round: number) => Promise<ProgramsLayout>,
  programs: number,
  gatewayUrl: string,
  days: readonly RealDay[],
  users: number,
  serversRss: () => Record<string, number | null>,
): Promise<ProgramsFigures> {
  const runs: ProgramsLayoutFigures[] = [];
  for (const [round, n] of [1, programs, programs, 1].entries())
    runs.push(await runLayout(root, await layout(n, round), gatewayUrl, days, users));
  const [one1, many1, many2, one2] = runs as [
    ProgramsLayoutFigures,
    ProgramsLayoutFigures,
    ProgramsLayoutFigures,
    ProgramsLayoutFigures,
  ];
  return { runs, one: meanOf(one1, one2), many: meanOf(many1, many2), serversRssMb: serversRss() };
}

/** The benchmark table's rows: the many-program layout against the one-program layout of the same run. */
export function programsRows(f: ProgramsFigures): string[] {
  const row = (l: ProgramsLayoutFigures) =>
    `${l.entriesPerS} entries/s (${l.entries.toLocaleString('en')} entries in ${l.seconds} s); put → trips served p50 ${l.p50Ms} ms, p95 ${l.p95Ms} ms, max ${l.maxMs} ms (mean of 2 runs: ${f.runs
      .filter((r) => r.programs === l.programs)
      .map((r) => `${r.entriesPerS}/s p95 ${r.p95Ms} ms`)
      .join(', ')})`;
  const per = f.many.users / f.many.programs;
  const services = Object.values(f.many.peakRssMb).reduce((a, b) => a + b, 0);
  const servers = Object.values(f.serversRssMb).reduce<number>((a, b) => a + (b ?? 0), 0);
  return [
    `| ${f.one.users.toLocaleString('en')} users as 1 program | ${row(f.one)} | | |`,
    `| the same users as ${f.many.programs} programs × ${per.toLocaleString('en')} | ${row(f.many)} | 1 program, same run | throughput ${(f.many.entriesPerS / f.one.entriesPerS).toFixed(2)}, p95 ${(f.many.p95Ms / f.one.p95Ms).toFixed(2)} |`,
    `| memory of ${f.many.programs} programs on one stack | ${services + servers} MB (services ${services} MB peak, servers ${servers} MB) | ${f.many.programs} single-program stacks: ${f.many.programs} × ${services + servers} = ${(f.many.programs * (services + servers)).toLocaleString('en')} MB | ${(1 / f.many.programs).toFixed(2)} |`,
  ];
}
