/**
 * The operators' console at 10,000 participants (the target: "page loads p95 ≤ 300 ms at 10,000
 * participants"). 10,000 × BENCH_SCALE participants are written straight to the tables the participant index reads
 * (users_by_uuid, participant_activity) with trips, pushes and platforms, 200 dead letters to the error table, and
 * one participant pushes a real day (aug-27) through the real gateway, converter and trip builder. Then the console
 * and the development OIDC provider start in this process, Chromium logs in, and each page is loaded again and
 * again: a load is timed from navigation to the page's data on screen (a participants row, the day's 8 trips…).
 * The same pages' JSON calls are also timed alone, with and without sorting and search.
 */
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import pLimit from 'p-limit';
import { createCassandraClient, createCql } from '../shared/cassandra/index.js';
import type { Config } from '../shared/config/index.js';
import { createKafka, createKeyedProducer } from '../shared/kafka/index.js';
import { createLogger } from '../shared/logger/index.js';
import { createAvroCodec, createSchemaRegistry } from '../shared/schema-registry/index.js';
import { createErrorTimeseries } from '../shared/timeseries/index.js';
import { launchBrowser } from '../test/helpers/browser.js';
import { startConsole } from '../test/helpers/console.js';
import { loginInBrowser, loginWithFetch } from '../test/helpers/console-login.js';
import { startGateway } from '../test/helpers/gateway.js';
import { createIntakeLog } from '../shared/logger/intake-log.js';
import { composeConverterStores } from '../services/converter/compose.js';
import { runConverter } from '../services/converter/run-converter.js';
import { composeTripBuilderStores } from '../services/trip-builder/compose.js';
import { runTripBuilder } from '../services/trip-builder/run-trip-builder.js';
import { DAY_OF, phoneEntries } from '../test/helpers/real-days.js';
import type { TestEnv } from '../test/helpers/test-env.js';
import { percentile } from './load.js';

export interface ConsoleFigures {
  participants: number;
  indexRefreshMs: number;
  /**
   * Per page, loads in Chromium: `p*Ms` from the navigation's start to the page's first data on screen, by the
   * browser's own clock (performance.now() when the page marks itself ready); `driverP95Ms` the same seen from the
   * benchmark, which adds Playwright's round trips to the browser.
   */
  pages: { page: string; loads: number; p50Ms: number; p95Ms: number; maxMs: number; driverP95Ms: number }[];
  /** Per JSON call behind the pages, timed alone. */
  api: { call: string; calls: number; p50Ms: number; p95Ms: number }[];
}

const DAY = 'shankari_2015-aug-27';
const TOKEN = 'bench-console-day@example.org';
const PAGE_LOADS = 20;
/**
 * Resolves in the page once it has marked itself ready. Not a Playwright locator: a locator's first use in a new
 * document evaluates Playwright's injected script (hundreds of kB) on the page's main thread while the page
 * loads, which a Chromium trace showed at 100–600 ms per load on this 2-core machine, more than the page's own
 * scripts; an operator's browser runs no such thing. A string, so tsx adds no helper the page lacks.
 */
const WAIT_FOR_READY = `new Promise((resolve) => {
  const check = () => (document.body?.dataset.ready === 'true' ? resolve(true) : setTimeout(check, 10));
  check();
})`;
const API_CALLS = 100;

function stats(ms: number[]) {
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    p50Ms: Math.round(percentile(sorted, 50)),
    p95Ms: Math.round(percentile(sorted, 95)),
    maxMs: Math.round(sorted.at(-1) ?? 0),
  };
}

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`bench: ${what} did not happen within ${timeoutMs} ms`);
}

/** The participants: one row each in users_by_uuid and participant_activity, as registration and the workers write. */
export async function seedParticipants(env: TestEnv, count: number) {
  const limit = pLimit(64);
  const now = Date.now() / 1000;
  await Promise.all(
    Array.from({ length: count }, (_, i) =>
      limit(async () => {
        const uuid = randomUUID();
        const created = new Date((now - 86_400 * (30 + (i % 60))) * 1000);
        await env.cql.write(
          'INSERT INTO users_by_uuid (uuid, user_email, oid, create_ts, update_ts) VALUES (?, ?, ?, ?, ?)',
          [
            uuid,
            `nrelop_bench_default_${String(i).padStart(6, '0')}`,
            uuid.replace(/-/g, '').slice(0, 24),
            created,
            created,
          ],
        );
        const trips = i % 400;
        await env.cql.write(
          'INSERT INTO participant_activity (user_id, first_push_ts, last_push_ts, platform, trips, labelled_trips, last_trip_ts) VALUES (?, ?, ?, ?, ?, ?, ?)',
          [
            uuid,
            created.getTime() / 1000,
            now - (i % 5000) * 60,
            i % 3 === 0 ? 'ios' : 'android',
            trips,
            Math.floor(trips / 3),
            now - (i % 5000) * 60 - 600,
          ],
        );
      }),
    ),
  );
}

export async function seedDeadLetters(env: TestEnv, userId: string, count: number) {
  const errors = createErrorTimeseries(env.cql);
  for (let i = 0; i < count; i += 1) {
    const writeTs = 1440700000 + i;
    await errors.insert({
      user_id: userId,
      key: i % 2 ? 'background/battery' : 'statemachine/transition',
      type: 'message',
      write_ts: writeTs,
      reason: i % 2 ? 'bench: refused by the conversion rules' : 'bench: a converter bug',
      source_topic: 'usercache',
      source_partition: 0,
      source_offset: i,
      failed_ts: Date.now() / 1000,
      metadata_json: JSON.stringify({
        key: 'statemachine/transition',
        platform: 'android',
        type: 'message',
        write_ts: writeTs,
      }),
      data_json: '{}',
    });
  }
}

/** A test environment on the bench's configuration, sharing one Cassandra session and one Kafka client. */
export async function consoleBenchEnv(config: Config): Promise<TestEnv> {
  const logger = createLogger({ component: 'bench', level: 'error' });
  logger.silent = true;
  const cassandra = createCassandraClient({ ...config.cassandra });
  await cassandra.connect();
  const kafka = createKafka({ ...config.kafka, clientId: 'bench-console', logger });
  return {
    config,
    kafka,
    cassandra,
    cql: createCql(cassandra),
    codec: createAvroCodec(createSchemaRegistry(config.schemaRegistry)),
    logger,
    dispose: async () => undefined,
  };
}

/** One participant pushes the real day through the real gateway, converter and trip builder: answers its uuid. */
export async function pushRealDay(env: TestEnv): Promise<{ userId: string; date: string }> {
  const { config, kafka, logger } = env;
  const gw = await startGateway(env);
  // The workers as test/helpers/pipeline.ts starts them (that module needs vitest's runner).
  const intakeLog = createIntakeLog({ dir: tmpdir(), maxBytes: 100 * 1024 ** 2, maxFiles: 5 }, 0, 'error');
  // Each worker owns its producer and closes it when it stops.
  const clients = () => ({ kafka, producer: createKeyedProducer({ ...config.kafka, clientId: 'bench' }) });
  const converter = await runConverter(clients(), {
    codec: env.codec,
    ...composeConverterStores(env.cql),
    topicPrefix: config.kafka.topicPrefix,
    logger,
    intakeLog,
  });
  const builder = await runTripBuilder(clients(), {
    codec: env.codec,
    ...composeTripBuilderStores(env.cql),
    topicPrefix: config.kafka.topicPrefix,
    logger,
    pipelineLog: intakeLog,
    now: () => Date.now() / 1000,
  });
  const date = DAY_OF[DAY];
  try {
    const userId = (await gw.post('/profile/create', { user: TOKEN })).body.uuid as string;
    const entries = phoneEntries(DAY);
    for (let i = 0; i < entries.length; i += 500) {
      const res = await gw.post('/usercache/put', { user: TOKEN, phone_to_server: entries.slice(i, i + 500) });
      if (res.status !== 200) throw new Error(`bench: put answered ${res.status}`);
    }
    await until(
      async () => (await gw.post(`/timeline/getTrips/${date}`, { user: TOKEN })).body.timeline.length >= 8,
      120_000,
      'the real day’s 8 trips',
    );
    return { userId, date };
  } finally {
    await builder.stop();
    await converter.stop();
    await gw.close();
  }
}

export async function benchConsole(config: Config, participants: number): Promise<ConsoleFigures> {
  const env = await consoleBenchEnv(config);
  const { cassandra } = env;
  const { userId, date } = await pushRealDay(env);
  await seedParticipants(env, participants);
  await seedDeadLetters(env, userId, 200);

  const app = await startConsole(env);
  const browser = await launchBrowser();
  try {
    const started = Date.now();
    await app.composed.refreshParticipants();
    const indexRefreshMs = Date.now() - started;
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await loginInBrowser(page, app.url, 'operator@itinera.local');
    const pageSpecs: { page: string; path: string; ready: (p: typeof page) => Promise<unknown> }[] = [
      {
        page: 'participants (newest push first)',
        path: '/admin/',
        ready: (p) => p.getByTestId('participant-row').first().waitFor(),
      },
      {
        page: 'participants sorted by trips, page 100',
        path: '/admin/?sort=trips&dir=asc&page=100',
        ready: (p) => p.getByTestId('participant-row').first().waitFor(),
      },
      {
        page: 'participants searched',
        path: '/admin/?q=bench_default_0042',
        ready: (p) => p.getByTestId('participant-row').first().waitFor(),
      },
      {
        page: 'radar (every rule)',
        path: '/admin/radar.html',
        ready: (p) => p.getByTestId('radar-row').first().waitFor(),
      },
      {
        page: 'a day on the map (8 trips)',
        path: `/admin/day.html?user=${userId}&date=${date}`,
        ready: (p) => p.getByTestId('trip-row').nth(7).waitFor(),
      },
      {
        page: 'pipeline',
        path: '/admin/pipeline.html',
        ready: (p) => p.getByTestId('pipeline-table').first().waitFor(),
      },
      {
        page: 'dead letters (200)',
        path: '/admin/dead-letters.html',
        ready: (p) => p.getByTestId('dead-letter-row').first().waitFor(),
      },
      {
        page: 'program summary (30 days)',
        path: '/admin/summary.html',
        ready: (p) => p.getByTestId('summary-trips-chart').waitFor(),
      },
      { page: 'tokens', path: '/admin/tokens.html', ready: (p) => p.getByTestId('refused-table').waitFor() },
    ];
    const pages: ConsoleFigures['pages'] = [];
    for (const spec of pageSpecs) {
      const ms: number[] = [];
      const driverMs: number[] = [];
      for (let i = 0; i < PAGE_LOADS + 2; i += 1) {
        const t0 = performance.now();
        // From the navigation's start until the page marks its first data on screen (<body data-ready>) and the
        // page's own element is there; not the load event, which also waits for what nobody looks at.
        await page.goto(app.url + spec.path, { waitUntil: 'commit' });
        await page.evaluate(WAIT_FOR_READY);
        await spec.ready(page);
        const driver = performance.now() - t0;
        const inBrowser = Number(await page.locator('body').getAttribute('data-ready-ms'));
        // The first two loads warm the browser's cache and the server's code paths.
        if (i < 2) continue;
        ms.push(inBrowser);
        driverMs.push(driver);
      }
      pages.push({ page: spec.page, loads: ms.length, ...stats(ms), driverP95Ms: stats(driverMs).p95Ms });
    }

    const session = await loginWithFetch(app.url, 'operator@itinera.local');
    const calls = [
      ['participants, newest push first', '/admin/api/participants'],
      ['participants, sorted by trips, page 100', '/admin/api/participants?sort=trips&dir=asc&page=100'],
      ['participants, searched', '/admin/api/participants?q=default_0042'],
      ['radar, every rule', '/admin/api/radar'],
      ['radar, silent for 24 h, page 10', '/admin/api/radar?rule=silent&hours=24&page=10'],
      ['a day', `/admin/api/users/${userId}/days/${date}`],
      ['a day’s completeness', `/admin/api/users/${userId}/quality?from=${date}&to=${date}`],
      ['14 days’ completeness', `/admin/api/users/${userId}/quality`],
      ['pipeline', '/admin/api/pipeline'],
      ['dead-letter summary', '/admin/api/dead-letters/summary'],
      ['dead letters, first 100', '/admin/api/dead-letters?limit=100'],
      ['dead letters of one key', '/admin/api/dead-letters?limit=100&key=background%2Fbattery'],
      ['program summary, 30 days', '/admin/api/summary?days=30'],
    ] as const;
    const api: ConsoleFigures['api'] = [];
    for (const [call, path] of calls) {
      const ms: number[] = [];
      for (let i = 0; i < API_CALLS; i += 1) {
        const t0 = performance.now();
        const res = await fetch(app.url + path, { headers: { cookie: session.cookie } });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`bench: ${path} answered ${res.status}`);
        ms.push(performance.now() - t0);
      }
      const { p50Ms, p95Ms } = stats(ms);
      api.push({ call, calls: ms.length, p50Ms, p95Ms });
    }
    return { participants, indexRefreshMs, pages, api };
  } finally {
    await browser.close();
    await app.close();
    await cassandra.shutdown();
  }
}

export function consoleRows(f: ConsoleFigures): string[] {
  return [
    `| console: participant index refresh, ${f.participants} participants | ${f.indexRefreshMs} ms (in the background, every participants_refresh_s) | | |`,
    ...f.pages.map(
      (p) =>
        `| console page load in Chromium, ${f.participants} participants: ${p.page} | p50 ${p.p50Ms} ms, p95 ${p.p95Ms} ms, max ${p.maxMs} ms (${p.loads} loads; p95 ${p.driverP95Ms} ms seen from the driver) | target p95 ≤ 300 ms | ${(p.p95Ms / 300).toFixed(2)} |`,
    ),
    ...f.api.map(
      (a) =>
        `| console API, ${f.participants} participants: ${a.call} | p50 ${a.p50Ms} ms, p95 ${a.p95Ms} ms (${a.calls} calls) | | |`,
    ),
  ];
}
