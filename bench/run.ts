/**
 * npm run bench: measures the gateway and the converter on the real local stack, each against a raw baseline
 * measured in the same run on the same records. Writes bench/results/<date>.{json,md} and prints the table.
 * BENCH_SCALE (default 1) multiplies the number of puts, converted entries and exported entries. BENCH_PARTS
 * (default "put,converter,e2e,metrics"; "metrics" is bench/metrics-summary.ts, a second of pure computation) runs
 * only some parts; "export" (bench/export.ts: a million entries seeded, then exported in one call, about 2 GB
 * written to Cassandra), "console" (bench/console.ts: page loads in Chromium at 10,000 × scale participants), "day"
 * (bench/population-day.ts: BENCH_DAY_USERS, default 10,000, users' real days pushed until all their trips are
 * served; about ten million entries, tens of GB and most of an hour on two cores), "layout"
 * (bench/timeseries-layout.ts: Cassandra's CPU for 300,000 × scale entries' timeseries rows, each entry's JSON in
 * both orderings against once), "kafka" (bench/kafka-clients.ts: 300,000 × scale entries sent and read back by
 * kafkajs and by @platformatic/kafka) and "programs" (bench/programs.ts: BENCH_PROGRAM_USERS, default 10,000, users
 * as one program and then as BENCH_PROGRAMS, default 20, programs on the same stack, in the order one, many, many, one,
 * or with BENCH_PROGRAM_RUNS=once one then many) run only when named. BENCH_E2E_USERS (default "100,1000")
 * sets the end-to-end user counts (each a point of the CPU-per-entry curve); BENCH_LABELS_PER_S (default 10) the
 * rate of its paced label phase; BENCH_CPU_PROF_DIR makes every service process write a CPU profile there. The
 * services run compiled, as in production (bench/load.ts serviceArgs; BENCH_FROM_SOURCE=1 runs them with tsx);
 * BENCH_NODE_FLAGS gives the put and converter parts' service processes node flags (a heap limit, say).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Admin } from 'kafkajs';
import { loadConfig, type Config } from '../shared/config/index.js';
import { groupName, topicName } from '../shared/events/index.js';
import { groupProgress } from '../shared/kafka/index.js';
import { provision } from '../deploy/provision/provision.js';
import { emissionFixturesDir } from '../test/helpers/fixtures.js';
import { benchEndToEnd, endToEndRows, loadDays, type EndToEndFigures } from './end-to-end.js';
import { benchConsole, consoleRows, type ConsoleFigures } from './console.js';
import { benchRawCassandra, benchRawProducer } from './raw-baselines.js';
import { benchExport, exportRows, type ExportFigures } from './export.js';
import { benchPopulationDay, populationDayRows, type PopulationDayFigures } from './population-day.js';
import { benchPrograms, programsRows, type ProgramsFigures } from './programs.js';
import { benchTimeseriesLayout, layoutRows, type LayoutFigures } from './timeseries-layout.js';
import { benchKafkaClients, kafkaClientRows, type KafkaClientFigures } from './kafka-clients.js';
import { loadRealEntries, makeBatch, type PhoneEntry } from '../test/helpers/phone-entries.js';
import {
  benchKafka,
  dropEarlierBenchData,
  percentile,
  profilingArgs,
  residentMb,
  serverPids,
  serverRss,
  serviceArgs,
  serviceProcessEnv,
} from './load.js';
import { benchMetricsSummary, metricsSummaryRows } from './metrics-summary.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const scale = Number(process.env['BENCH_SCALE'] ?? 1);
const parts = new Set((process.env['BENCH_PARTS'] ?? 'put,converter,e2e,metrics').split(','));
const PUT_SIZE = 10_000;
const GATEWAY_PORT = 18_080;

function benchConfig(tag: string): Config {
  return loadConfig({
    confDir: join(root, 'conf'),
    env: {
      ...process.env,
      ITINERA_TOPIC_PREFIX: `bench${tag}.`,
      CASSANDRA_KEYSPACE: `bench${tag}`,
      ITINERA_PARTITIONS: '16',
    },
  });
}

function envFor(config: Config, logDir: string): NodeJS.ProcessEnv {
  return serviceProcessEnv(config, logDir, GATEWAY_PORT);
}

function startProcess(script: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const flags = (process.env['BENCH_NODE_FLAGS'] ?? '').split(' ').filter(Boolean);
  return spawn(process.execPath, [...profilingArgs(), ...flags, ...serviceArgs(root, script), ...args], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`bench: timed out waiting for ${what}`);
}

async function post(path: string, body: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${GATEWAY_PORT}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  await res.arrayBuffer();
  return res.status;
}

interface PutFigures {
  phones: number;
  puts: number;
  entriesPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** The gateway's peak resident memory during this row's puts. */
  gatewayRssMb: number;
}

async function benchPuts(
  real: PhoneEntry[],
  config: Config,
  logDir: string,
): Promise<{ rows: PutFigures[]; gatewayRssMb: number }> {
  const gateway = startProcess('services/gateway/main.ts', [], envFor(config, logDir));
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, residentMb(gateway.pid) ?? 0)), 200);
  try {
    await waitUntil(async () => (await fetch(`http://127.0.0.1:${GATEWAY_PORT}/health`)).ok, 30_000, 'the gateway');
    const rows: PutFigures[] = [];
    let batchIndex = 0;
    for (const [phones, rounds] of [
      [1, 5 * scale],
      [4, 3 * scale],
      [16, 2 * scale],
    ] as const) {
      const tokens = Array.from({ length: phones }, (_, i) => `bench-${phones}-${i}@itinera.org`);
      for (const t of tokens) await post('/profile/create', JSON.stringify({ user: t }));
      const bodies = tokens.map((t) =>
        Array.from({ length: rounds }, () =>
          JSON.stringify({ user: t, phone_to_server: makeBatch(real, PUT_SIZE, batchIndex++) }),
        ),
      );
      // One warm-up put so JIT and connections are not billed to the first measured call.
      if (phones === 1)
        await post(
          '/usercache/put',
          JSON.stringify({ user: tokens[0], phone_to_server: makeBatch(real, PUT_SIZE, batchIndex++) }),
        );
      const latencies: number[] = [];
      peakRss = 0;
      const t0 = performance.now();
      await Promise.all(
        bodies.map(async (phoneBodies) => {
          for (const body of phoneBodies) {
            const start = performance.now();
            const status = await post('/usercache/put', body);
            if (status !== 200) throw new Error(`bench: put answered ${status}`);
            latencies.push(performance.now() - start);
          }
        }),
      );
      const seconds = (performance.now() - t0) / 1000;
      latencies.sort((a, b) => a - b);
      rows.push({
        phones,
        puts: latencies.length,
        entriesPerSecond: Math.round((latencies.length * PUT_SIZE) / seconds),
        p50Ms: Math.round(percentile(latencies, 50)),
        p99Ms: Math.round(percentile(latencies, 99)),
        gatewayRssMb: peakRss,
      });
    }
    return { rows, gatewayRssMb: Math.max(...rows.map((r) => r.gatewayRssMb)) };
  } finally {
    clearInterval(sampler);
    gateway.kill('SIGTERM');
  }
}

async function resetConverterGroup(config: Config): Promise<void> {
  const kafka = benchKafka(config, 'bench-reset');
  const admin = kafka.admin();
  await admin.connect();
  await admin
    .resetOffsets({
      groupId: groupName(config.kafka.topicPrefix, 'converter'),
      topic: topicName(config.kafka.topicPrefix, 'usercache'),
      earliest: true,
    })
    .catch(() => undefined);
  await admin.disconnect();
}

async function benchConverter(
  config: Config,
  admin: Admin,
  logDir: string,
  workers: number,
): Promise<{ entriesPerSecond: number; rssMb: number }> {
  await resetConverterGroup(config);
  const group = groupName(config.kafka.topicPrefix, 'converter');
  const topic = topicName(config.kafka.topicPrefix, 'usercache');
  const procs = Array.from({ length: workers }, (_, i) =>
    startProcess('services/converter/main.ts', [String(i)], envFor(config, logDir)),
  );
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, ...procs.map((p) => residentMb(p.pid) ?? 0))), 200);
  try {
    let firstAt = 0;
    let firstCount = 0;
    let total = 0;
    await waitUntil(
      async () => {
        const { committed, high } = await groupProgress(admin, group, topic);
        total = high;
        if (firstAt === 0 && committed > 0) {
          firstAt = performance.now();
          firstCount = committed;
        }
        return high > 0 && committed >= high;
      },
      600_000,
      `${workers} converter workers`,
    );
    // Measured from the group's first commit: the time to join the group is not conversion throughput.
    const seconds = (performance.now() - firstAt) / 1000;
    return { entriesPerSecond: Math.round((total - firstCount) / Math.max(seconds, 0.001)), rssMb: peak };
  } finally {
    clearInterval(sampler);
    for (const p of procs) p.kill('SIGTERM');
    await Promise.all(procs.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.once('exit', r)))));
  }
}

async function main(): Promise<void> {
  const real = loadRealEntries(emissionFixturesDir());
  const tag = Date.now().toString(36);
  const putConfig = benchConfig(`${tag}p`);
  const dropped = await dropEarlierBenchData(putConfig);
  process.stdout.write(`bench: dropped ${dropped.keyspaces} keyspaces and ${dropped.topics} topics of earlier runs\n`);
  const convConfig = benchConfig(`${tag}c`);
  await provision(putConfig);
  await provision(convConfig);
  const logDir = mkdtempSync(join(tmpdir(), 'itinera-bench-'));

  let puts: { rows: PutFigures[]; gatewayRssMb: number } = { rows: [], gatewayRssMb: 0 };
  if (parts.has('put')) {
    process.stdout.write('bench: puts through the gateway…\n');
    puts = await benchPuts(real, putConfig, logDir);
  }
  // The raw producer is the put baseline, and what it writes is the converter's input.
  const convBatches = 10 * scale;
  let rawProducer = 0;
  if (parts.has('put') || parts.has('converter')) {
    process.stdout.write("bench: raw producer (the gateway's client)…\n");
    rawProducer = await benchRawProducer(real, convConfig, convBatches);
  }
  const converter: Record<number, { entriesPerSecond: number; rssMb: number }> = {};
  let rawCassandra = 0;
  if (parts.has('converter')) {
    // One admin connection polls the group's progress for all runs, so polling costs no connection set-up.
    const admin = benchKafka(convConfig, 'bench-progress').admin();
    await admin.connect();
    for (const workers of [1, 2, 4]) {
      process.stdout.write(`bench: converter with ${workers} worker(s)…\n`);
      converter[workers] = await benchConverter(convConfig, admin, logDir, workers);
    }
    await admin.disconnect();
    process.stdout.write('bench: raw Cassandra writes…\n');
    rawCassandra = await benchRawCassandra(real, convConfig, 50_000 * scale);
  }

  const endToEnd: EndToEndFigures[] = [];
  const e2eUsers = parts.has('e2e') ? (process.env['BENCH_E2E_USERS'] ?? '100,1000').split(',').map(Number) : [];
  for (const users of e2eUsers) {
    process.stdout.write(`bench: end to end, ${users} users…\n`);
    const e2eConfig = benchConfig(`${tag}e${users}`);
    await provision(e2eConfig);
    endToEnd.push(
      await benchEndToEnd(
        root,
        e2eConfig,
        envFor(e2eConfig, logDir),
        `http://127.0.0.1:${GATEWAY_PORT}`,
        loadDays(emissionFixturesDir()),
        users,
        serverPids(root),
        Number(process.env['BENCH_LABELS_PER_S'] ?? 10),
      ),
    );
  }

  let exported: ExportFigures | null = null;
  if (parts.has('export')) {
    process.stdout.write('bench: export of one user with 1,000,000 × scale raw entries…\n');
    const exportConfig = benchConfig(`${tag}x`);
    await provision(exportConfig);
    const startGateway = () => startProcess('services/gateway/main.ts', [], envFor(exportConfig, logDir));
    const url = `http://127.0.0.1:${GATEWAY_PORT}`;
    exported = await benchExport(exportConfig, startGateway, url, real, Math.round(1_000_000 * scale));
  }

  let populationDay: PopulationDayFigures | null = null;
  if (parts.has('day')) {
    const users = Number(process.env['BENCH_DAY_USERS'] ?? 10_000);
    process.stdout.write(`bench: a day of ${users} users…\n`);
    const dayConfig = benchConfig(`${tag}d`);
    await provision(dayConfig);
    populationDay = await benchPopulationDay(
      root,
      dayConfig,
      envFor(dayConfig, logDir),
      `http://127.0.0.1:${GATEWAY_PORT}`,
      loadDays(emissionFixturesDir()),
      users,
      serverPids(root),
    );
  }

  let programs: ProgramsFigures | null = null;
  if (parts.has('programs')) {
    const users = Number(process.env['BENCH_PROGRAM_USERS'] ?? 10_000);
    const count = Number(process.env['BENCH_PROGRAMS'] ?? 20);
    if (!(count >= 2)) throw new Error('bench: BENCH_PROGRAMS compares many programs with one: give 2 or more');
    const once = process.env['BENCH_PROGRAM_RUNS'] === 'once';
    process.stdout.write(
      `bench: ${users} users as 1 program and as ${count} programs, ${once ? 'once' : 'twice'} each…\n`,
    );
    const layout = async (n: number, round: number) => {
      const config = benchConfig(`${tag}p${n}r${round}`);
      await provision(config);
      return { config, env: envFor(config, logDir), programs: n };
    };
    programs = await benchPrograms(
      root,
      layout,
      count,
      `http://127.0.0.1:${GATEWAY_PORT}`,
      loadDays(emissionFixturesDir()),
      users,
      () => serverRss(root),
      { once },
    );
  }

  let layout: LayoutFigures | null = null;
  if (parts.has('layout')) {
    const pid = serverPids(root)['cassandra'];
    if (pid === undefined) throw new Error('the layout part measures the local stack’s Cassandra: no pid file found');
    layout = await benchTimeseriesLayout(
      async (name, round) => {
        const config = benchConfig(`${tag}l${name === 'one copy' ? 1 : 2}r${round}`);
        await provision(config);
        return config;
      },
      real,
      Math.round(300_000 * scale),
      pid,
    );
  }

  let kafkaClients: KafkaClientFigures | null = null;
  if (parts.has('kafka')) {
    const config = benchConfig(`${tag}c`);
    await provision(config);
    kafkaClients = await benchKafkaClients(config, real, Math.round(30 * scale), serverPids(root)['kafka']);
  }

  const metricsSummary = parts.has('metrics') ? benchMetricsSummary() : null;

  let consoleFigures: ConsoleFigures | null = null;
  if (parts.has('console')) {
    process.stdout.write('bench: the operators’ console at 10,000 × scale participants…\n');
    const consoleConfig = benchConfig(`${tag}k`);
    await provision(consoleConfig);
    consoleFigures = await benchConsole(consoleConfig, Math.round(10_000 * scale));
  }

  const sustained = Math.max(0, ...puts.rows.map((r) => r.entriesPerSecond));
  const results = {
    date: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? '',
      memoryGb: Math.round(totalmem() / 1024 ** 3),
      node: process.version,
    },
    scale,
    put: puts.rows,
    rawProducerEntriesPerSecond: rawProducer,
    gatewayVsRawProducer: Number((sustained / rawProducer).toFixed(2)),
    gatewayPeakRssMb: puts.gatewayRssMb,
    converter,
    convertedEntries: convBatches * PUT_SIZE,
    rawCassandraEntriesPerSecond: rawCassandra,
    serversRssMb: serverRss(root),
    endToEnd,
    export: exported,
    console: consoleFigures,
    metricsSummary,
    populationDay,
    programs,
    layout,
    kafkaClients,
  };
  const table = [
    `Machine: ${results.machine.cpus} cores (${results.machine.cpuModel}), ${results.machine.memoryGb} GiB, Node ${results.machine.node}; whole stack on the same machine.`,
    '',
    '| measurement | figure | baseline (same run) | ratio |',
    '|---|---|---|---|',
    ...puts.rows.map(
      (r) =>
        `| put, ${r.phones} phone(s), ${r.puts} × 10,000 entries | ${r.entriesPerSecond} entries/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, gateway RSS ${r.gatewayRssMb} MB | raw producer ${rawProducer} entries/s | ${(r.entriesPerSecond / rawProducer).toFixed(2)} |`,
    ),
    ...Object.keys(converter)
      .map(Number)
      .map(
        (w) =>
          `| converter, ${w} worker(s), ${results.convertedEntries} entries | ${converter[w]?.entriesPerSecond} entries/s | raw Cassandra ${rawCassandra} entries/s | ${((converter[w]?.entriesPerSecond ?? 0) / rawCassandra).toFixed(2)} |`,
      ),
    ...endToEndRows(endToEnd),
    ...(populationDay ? populationDayRows(populationDay) : []),
    ...(programs ? programsRows(programs) : []),
    ...(layout ? layoutRows(layout) : []),
    ...(kafkaClients ? kafkaClientRows(kafkaClients) : []),
    ...(exported ? exportRows(exported) : []),
    ...(consoleFigures ? consoleRows(consoleFigures) : []),
    ...(metricsSummary ? metricsSummaryRows(metricsSummary) : []),
    ...(parts.has('put') ? [`| gateway peak RSS under load | ${puts.gatewayRssMb} MB | | |`] : []),
    ...(parts.has('converter')
      ? [`| converter peak RSS (per worker) | ${Math.max(...Object.values(converter).map((c) => c.rssMb))} MB | | |`]
      : []),
    `| servers RSS | ${Object.entries(results.serversRssMb)
      .map(([k, v]) => `${k} ${v ?? '-'} MB`)
      .join(', ')} | | |`,
  ].join('\n');
  const outDir = join(root, 'bench', 'results');
  mkdirSync(outDir, { recursive: true });
  // A partial run (BENCH_PARTS) is filed under its parts, so it never replaces the day's full table.
  const everything = ['put', 'converter', 'e2e'].every((p) => parts.has(p));
  const name = everything ? results.date.slice(0, 10) : `${results.date.slice(0, 10)}.${[...parts].sort().join('+')}`;
  writeFileSync(join(outDir, `${name}.json`), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(outDir, `${name}.md`), `${table}\n`);
  process.stdout.write(`\n${table}\n`);
  process.exit(0);
}

main().catch((err: unknown) => {
  console.error('bench failed:', err);
  process.exit(1);
});
