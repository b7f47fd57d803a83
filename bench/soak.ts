/**
 * npm run soak: the gateway under a long storm of hostile requests while 50 honest phones keep pushing real data
 * and one client keeps sending the heaviest metrics query it can. Not part of `npm test` (10 minutes and more).
 *
 * Reports: the number of 5xx answers (must be 0), p50/p99 latency of the honest calls, the slowest honest put
 * answered while the heavy metrics query was running (target: under 1 s), the gateway's peak resident memory, and
 * whether every honest entry is in the timeseries exactly once. Writes bench/results/soak-<date>.{json,md}.
 *
 * SOAK_MINUTES (default 10) and SOAK_REQUESTS (default 100,000 hostile requests): the soak runs until both are
 * reached. SOAK_PHONES (default 50); SOAK_HOSTILE_RATE (default 200 hostile requests/s at most).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import pLimit from 'p-limit';
import { provision } from '../deploy/provision/provision.js';
import { createCassandraClient, createCql } from '../shared/cassandra/index.js';
import { loadConfig } from '../shared/config/index.js';
import { createUsersTable } from '../shared/tables/index.js';
import { createTimeseriesReader } from '../shared/timeseries/index.js';
import { stormRequest } from '../test/bad-input/arbitraries.js';
import { createRawClient } from '../test/bad-input/raw-client.js';
import { emissionFixturesDir } from '../test/helpers/fixtures.js';
import { loadRealEntries, makeBatch } from '../test/helpers/phone-entries.js';
import { percentile, residentMb, serviceProcessEnv } from './load.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const MINUTES = Number(process.env['SOAK_MINUTES'] ?? 10);
const HOSTILE_REQUESTS = Number(process.env['SOAK_REQUESTS'] ?? 100_000);
const PHONES = Number(process.env['SOAK_PHONES'] ?? 50);
const HOSTILE_IN_FLIGHT = 8;
/** Hostile requests per second at most: 100,000 in 10 minutes needs 167. */
const HOSTILE_PER_SECOND = Number(process.env['SOAK_HOSTILE_RATE'] ?? 200);
/** A phone's sync: ~200 entries (an hour of tracking is 300–700; most syncs are smaller). */
const ENTRIES_PER_PUT = 200;
const GATEWAY_PORT = 18_090;
const BASE = `http://127.0.0.1:${GATEWAY_PORT}`;
/** Sections seeded for the heavy metrics query: the 40,000, spread over two years, 200 users. */
const SEEDED_SECTIONS = 40_000;
const SEED_START_TS = Date.UTC(2023, 0, 1) / 1000;
const DAY_S = 86_400;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const tag = randomUUID().replace(/-/g, '').slice(0, 8);
  const config = loadConfig({
    confDir: join(root, 'conf'),
    env: {
      ...process.env,
      ITINERA_TOPIC_PREFIX: `soak${tag}.`,
      CASSANDRA_KEYSPACE: `soak${tag}`,
      ITINERA_PARTITIONS: '16',
    },
  });
  await provision(config);
  const cassandra = createCassandraClient({ ...config.cassandra });
  await cassandra.connect();
  const cql = createCql(cassandra);
  await seedSections(cql);

  const logDir = mkdtempSync(join(tmpdir(), 'itinera-soak-'));
  const env = {
    ...serviceProcessEnv(config, logDir, GATEWAY_PORT),
    // The storm's users are few; the aggregate suppression would hide the seeded sections' bins.
    WEBSERVER_AGGREGATE_MIN_USERS: '1',
  };
  const start = (script: string, args: string[] = []): ChildProcess =>
    spawn(process.execPath, ['--import', 'tsx', join(root, script), ...args], {
      env,
      // The converter warns for every hostile entry it dead-letters: its log goes to the soak's log folder.
      stdio: ['ignore', 'ignore', openSync(join(logDir, `${script.split('/')[1]}.log`), 'a')],
    });
  const gateway = start('services/gateway/main.ts');
  const converter = start('services/converter/main.ts', ['0']);
  let peakRssMb = 0;
  const sampler = setInterval(() => (peakRssMb = Math.max(peakRssMb, residentMb(gateway.pid) ?? 0)), 250);

  try {
    for (let i = 0; ; i += 1) {
      if (
        await fetch(`${BASE}/health`)
          .then((r) => r.ok)
          .catch(() => false)
      )
        break;
      if (i > 300) throw new Error('soak: the gateway did not start');
      await sleep(100);
    }
    const honest = createRawClient(BASE, PHONES + 4);
    const phoneTokens = Array.from({ length: PHONES }, (_, i) => `soak-phone-${i}@itinera.org`);
    for (const user of [...phoneTokens, 'alice@example.org', 'bob@example.org'])
      await honest.send('POST', '/profile/create', JSON.stringify({ user }), 'application/json');

    const real = loadRealEntries(emissionFixturesDir());
    const deadline = Date.now() + MINUTES * 60_000;
    const figures = {
      fiveXx: 0,
      hostile: 0,
      hostileStatuses: {} as Record<number, number>,
      honestCalls: 0,
      honestFailures: [] as string[],
      honestLatencies: [] as number[],
      heavyQueries: 0,
      heavyQueryMs: [] as number[],
      putsDuringHeavy: [] as number[],
    };
    const sentEntries = new Map<string, number>();
    let heavyRunning = 0;
    let hostileDone = false;

    // A connection error is an honest call that failed (status 0), never a crash of the soak.
    const honestCall = (path: string, body: unknown) =>
      honest.send('POST', path, JSON.stringify(body), 'application/json').catch(() => ({ status: 0, ms: 0 }));
    const honestPhone = async (index: number) => {
      const user = phoneTokens[index]!;
      let batch = 0;
      while (Date.now() < deadline || !hostileDone) {
        // Identities are per user, so every phone may replay the same weeks; each batch is a new week.
        const entries = makeBatch(real, ENTRIES_PER_PUT, batch++);
        const during = heavyRunning > 0;
        const put = await honestCall('/usercache/put', { user, phone_to_server: entries });
        record(put.status, put.ms, `put by ${user}`);
        if (put.status === 200) sentEntries.set(user, (sentEntries.get(user) ?? 0) + entries.length);
        if (during && heavyRunning > 0) figures.putsDuringHeavy.push(put.ms);
        const read = await honestCall('/pipeline/get_complete_ts', { user });
        record(read.status, read.ms, `get_complete_ts by ${user}`);
        // Real phones sync every few minutes at most; every 5–10 s per phone is a heavy study's peak.
        await sleep(5_000 + Math.random() * 5_000);
      }
    };
    const record = (status: number, ms: number, what: string) => {
      figures.honestCalls += 1;
      figures.honestLatencies.push(ms);
      if (status >= 500) figures.fiveXx += 1;
      if (status !== 200) figures.honestFailures.push(`${what}: ${status}`);
    };

    // The heaviest metrics query a client can send: every metric, daily bins, the longest range, all users.
    const heavyClient = async () => {
      const heavy = createRawClient(BASE, 1);
      const body = JSON.stringify({
        user: 'alice@example.org',
        freq: 'D',
        start_time: SEED_START_TS,
        end_time: SEED_START_TS + 729 * DAY_S,
        metric_list: ['count', 'distance', 'duration', 'mean_speed', 'median_speed'],
        is_return_aggregate: true,
      });
      while (Date.now() < deadline || !hostileDone) {
        heavyRunning += 1;
        const res = await heavy.send('POST', '/result/metrics/timestamp', body, 'application/json');
        heavyRunning -= 1;
        figures.heavyQueries += 1;
        figures.heavyQueryMs.push(res.ms);
        if (res.status >= 500) figures.fiveXx += 1;
      }
      heavy.close();
    };

    const hostileClient = async () => {
      const client = createRawClient(BASE, HOSTILE_IN_FLIGHT);
      const limit = pLimit(HOSTILE_IN_FLIGHT);
      let seed = 1;
      while (figures.hostile < HOSTILE_REQUESTS || Date.now() < deadline) {
        const batchStarted = Date.now();
        const requests = fc.sample(stormRequest, { numRuns: 1000, seed: seed++ });
        await Promise.all(
          requests.map((r) =>
            limit(async () => {
              // A refusal may close the connection while a hostile body is still being sent: counted apart.
              const res = await client
                .send(r.method, r.path, r.body, r.contentType)
                .catch(() => ({ status: 0, ms: 0 }));
              figures.hostile += 1;
              figures.hostileStatuses[res.status] = (figures.hostileStatuses[res.status] ?? 0) + 1;
              if (res.status >= 500) figures.fiveXx += 1;
            }),
          ),
        );
        // Paced: the storm is a steady load beside the phones, not a race to saturate two shared cores.
        await sleep(Math.max(0, (1000 / HOSTILE_PER_SECOND) * 1000 - (Date.now() - batchStarted)));
        process.stderr.write(
          `\rsoak: ${figures.hostile} hostile, ${figures.honestCalls} honest calls, ${figures.fiveXx} 5xx, ${Math.round((deadline - Date.now()) / 1000)} s left   `,
        );
      }
      hostileDone = true;
      client.close();
    };

    const startedAt = Date.now();
    await Promise.all([hostileClient(), heavyClient(), ...phoneTokens.map((_, i) => honestPhone(i))]);
    const elapsedS = (Date.now() - startedAt) / 1000;
    process.stderr.write('\n');
    honest.close();

    // Every honest entry answered 200 must be in the timeseries exactly once.
    const reader = createTimeseriesReader(cql);
    const users = createUsersTable(cql);
    const stored = async () => {
      let mismatched = 0;
      for (const user of phoneTokens) {
        const uuid = (await users.findByEmail(user))?.uuid;
        const counts = await reader.countByKey(String(uuid));
        const n = Object.values(counts).reduce((a, b) => a + b, 0);
        if (n !== (sentEntries.get(user) ?? 0)) mismatched += 1;
      }
      return mismatched;
    };
    let mismatchedUsers = await stored();
    for (let i = 0; i < 60 && mismatchedUsers > 0; i += 1) {
      await sleep(5_000);
      mismatchedUsers = await stored();
    }

    const sorted = [...figures.honestLatencies].sort((a, b) => a - b);
    const heavySorted = [...figures.heavyQueryMs].sort((a, b) => a - b);
    const duringSorted = [...figures.putsDuringHeavy].sort((a, b) => a - b);
    const summary = {
      date: new Date().toISOString(),
      machine: `${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
      minutes: Math.round((elapsedS / 60) * 10) / 10,
      phones: PHONES,
      hostileRequests: figures.hostile,
      hostileStatuses: figures.hostileStatuses,
      fiveXx: figures.fiveXx,
      honestCalls: figures.honestCalls,
      honestNon200: figures.honestFailures.length,
      honestP50Ms: Math.round(percentile(sorted, 50)),
      honestP99Ms: Math.round(percentile(sorted, 99)),
      heavyQueries: figures.heavyQueries,
      heavyQueryP50Ms: Math.round(percentile(heavySorted, 50)),
      putsDuringHeavyQuery: duringSorted.length,
      putDuringHeavyP99Ms: Math.round(percentile(duringSorted, 99)),
      putDuringHeavyMaxMs: Math.round(duringSorted[duringSorted.length - 1] ?? Number.NaN),
      putsDuringHeavyOverOneSecond: duringSorted.filter((ms) => ms > 1000).length,
      honestEntries: [...sentEntries.values()].reduce((a, b) => a + b, 0),
      usersWithWrongCounts: mismatchedUsers,
      gatewayPeakRssMb: peakRssMb,
    };
    const md = [
      `# Soak ${summary.date.slice(0, 10)}`,
      '',
      `Machine: ${summary.machine}; whole stack on the same machine.`,
      '',
      '| measurement | figure |',
      '|---|---|',
      `| duration | ${summary.minutes} min |`,
      `| hostile requests | ${summary.hostileRequests} (statuses ${JSON.stringify(summary.hostileStatuses)}; 0 = connection closed by the gateway mid-request) |`,
      `| honest phones, calls | ${summary.phones} phones, ${summary.honestCalls} calls (puts of ${ENTRIES_PER_PUT} real entries, reads) |`,
      `| 5xx answers | ${summary.fiveXx} |`,
      `| honest calls not answered 200 | ${summary.honestNon200} |`,
      `| honest call latency | p50 ${summary.honestP50Ms} ms, p99 ${summary.honestP99Ms} ms |`,
      `| heaviest metrics query (${SEEDED_SECTIONS} sections, 2 years, daily, all metrics, aggregate) | ${summary.heavyQueries} sent, p50 ${summary.heavyQueryP50Ms} ms |`,
      `| honest put while that query runs | ${summary.putsDuringHeavyQuery} puts, p99 ${summary.putDuringHeavyP99Ms} ms, max ${summary.putDuringHeavyMaxMs} ms, ${summary.putsDuringHeavyOverOneSecond} over 1 s |`,
      `| honest entries stored exactly once | ${summary.honestEntries} entries; users whose count differs: ${summary.usersWithWrongCounts} |`,
      `| gateway peak RSS | ${summary.gatewayPeakRssMb} MB |`,
      '',
    ].join('\n');
    const dir = join(root, 'bench/results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `soak-${summary.date.slice(0, 10)}.json`), `${JSON.stringify(summary, null, 2)}\n`);
    writeFileSync(join(dir, `soak-${summary.date.slice(0, 10)}.md`), md);
    process.stdout.write(`${md}\n`);
    if (figures.honestFailures.length > 0)
      process.stdout.write(`first honest failures: ${figures.honestFailures.slice(0, 5).join('; ')}\n`);
    process.exitCode = summary.fiveXx === 0 && mismatchedUsers === 0 && summary.honestNon200 === 0 ? 0 : 1;
  } finally {
    clearInterval(sampler);
    gateway.kill('SIGTERM');
    converter.kill('SIGTERM');
    await cassandra.execute(`DROP KEYSPACE IF EXISTS ${config.cassandra.keyspace}`).catch(() => undefined);
    await cassandra.shutdown();
  }
}

/** 40,000 sections of 200 users over two years, written as the trip builder writes section_metrics rows. */
async function seedSections(cql: ReturnType<typeof createCql>): Promise<void> {
  const users = Array.from({ length: 200 }, () => randomUUID());
  const limit = pLimit(32);
  const modes = ['IN_VEHICLE', 'ON_FOOT', 'BICYCLING', 'UNKNOWN'];
  await Promise.all(
    Array.from({ length: SEEDED_SECTIONS }, (_, i) =>
      limit(() => {
        const startTs = SEED_START_TS + ((i * 1571) % (729 * DAY_S));
        return cql.write(
          'INSERT INTO section_metrics (day, user_id, start_ts, time_zone, mode, distance, duration) VALUES (?, ?, ?, ?, ?, ?, ?)',
          [
            Math.floor(startTs / DAY_S),
            users[i % users.length],
            startTs,
            'America/Denver',
            modes[i % 4],
            1000 + i,
            600,
          ],
        );
      }),
    ),
  );
}

main().catch((err: unknown) => {
  console.error('soak failed:', err);
  process.exit(1);
});
