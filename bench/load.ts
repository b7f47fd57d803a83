import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCassandraClient } from '../shared/cassandra/index.js';
import type { Config } from '../shared/config/index.js';
import type { Kafka } from 'kafkajs';
import { createKafka } from '../shared/kafka/index.js';
import { createLogger } from '../shared/logger/index.js';

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const at = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[at] as number;
}

export function residentMb(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/** The environment of a service process the benchmark or the soak starts: its topics, keyspace, port and logs. */
export function serviceProcessEnv(config: Config, logDir: string, gatewayPort: number): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ITINERA_TOPIC_PREFIX: config.kafka.topicPrefix,
    CASSANDRA_KEYSPACE: config.cassandra.keyspace,
    WEBSERVER_PORT: String(gatewayPort),
    WEBSERVER_HOST: '127.0.0.1',
    ITINERA_LOG_DIR: logDir,
    ITINERA_INTAKE_LOG_DIR: logDir,
  };
}

/** The local stack's server processes, by name, from their pid files. */
export function serverPids(root: string): Record<string, number | undefined> {
  const out: Record<string, number | undefined> = {};
  for (const [name, dir] of [
    ['kafka', 'kafka'],
    ['cassandra', 'cassandra'],
    ['registry', 'apicurio'],
  ] as const) {
    const pidFile = join(root, '.infra', dir, 'server.pid');
    out[name] = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) : undefined;
  }
  return out;
}

export function serverRss(root: string): Record<string, number | null> {
  return Object.fromEntries(Object.entries(serverPids(root)).map(([name, pid]) => [name, residentMb(pid)]));
}

/**
 * The node arguments that run a service as production does: its compiled JavaScript (`npm run bench` builds
 * first), so the figures carry no TypeScript loader's memory or CPU. BENCH_FROM_SOURCE=1 runs the sources with tsx
 * instead (no build; profiles then name the .ts lines).
 */
export function serviceArgs(root: string, script: string): string[] {
  if (process.env['BENCH_FROM_SOURCE'] === '1') return ['--import', 'tsx', join(root, script)];
  const compiled = join(root, 'dist', script.replace(/\.ts$/, '.js'));
  if (!existsSync(compiled)) throw new Error(`bench: ${compiled} is missing; run npm run build (npm run bench does)`);
  return [compiled];
}

/**
 * Drops what earlier benchmark runs left on the local stack: keyspaces and topics named `bench…` (each run makes its
 * own, and a run that stops early never drops them). Dozens of idle keyspaces still cost Cassandra memtables,
 * flushes and compactions, which moved later runs' figures; a run starts from a stack holding only itself.
 */
export async function dropEarlierBenchData(config: Config): Promise<{ keyspaces: number; topics: number }> {
  const client = createCassandraClient({
    contactPoints: config.cassandra.contactPoints,
    localDataCenter: config.cassandra.localDataCenter,
    credentials: config.cassandra.credentials,
    tls: config.cassandra.tls,
  });
  let keyspaces: string[] = [];
  try {
    const rows = await client.execute('SELECT keyspace_name FROM system_schema.keyspaces');
    keyspaces = rows.rows.map((r) => String(r['keyspace_name'])).filter((k) => k.startsWith('bench'));
    for (const k of keyspaces) await client.execute(`DROP KEYSPACE IF EXISTS ${k}`);
  } finally {
    await client.shutdown();
  }
  const admin = benchKafka(config, 'bench-cleanup').admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((t) => t.startsWith('bench'));
    if (topics.length > 0) {
      await admin.deleteTopics({ topics, timeout: 60_000 });
      // Deletion finishes in the background; provisioning new topics meanwhile meets stale metadata, so wait until
      // the topics are gone and the brokers' metadata has had a moment to follow.
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline && (await admin.listTopics()).some((t) => topics.includes(t)))
        await new Promise((r) => setTimeout(r, 500));
      await new Promise((r) => setTimeout(r, 5_000));
    }
    return { keyspaces: keyspaces.length, topics: topics.length };
  } finally {
    await admin.disconnect();
  }
}

/** A kafkajs client of the bench on `config`'s brokers, logging only errors. */
export function benchKafka(config: Config, clientId: string): Kafka {
  return createKafka({ ...config.kafka, clientId, logger: createLogger({ component: 'bench', level: 'error' }) });
}

/** BENCH_CPU_PROF_DIR: node flags that make a service process write a V8 CPU profile there (bench/summarize-profile.ts). */
export function profilingArgs(): string[] {
  const dir = process.env['BENCH_CPU_PROF_DIR'];
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
}

/** CPU time (user + system) a process has used so far, in milliseconds (0 once it is gone). */
export function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Runs `work` on every item, `width` at a time, each worker taking the next item when it is done (a closed loop). */
export async function inParallel<T>(
  items: readonly T[],
  width: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await work(items[i]!, i);
      }
    }),
  );
}

/** Waits until the gateway at `url` answers its health check (at most `timeoutMs`). */
export async function gatewayHealthy(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const healthy = () =>
    fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    );
  while (Date.now() < deadline && !(await healthy())) await sleep(200);
}

/** A POST of a JSON body to the gateway, its answer parsed (an empty object when it is not JSON). */
export type JsonPost = (path: string, body: unknown) => Promise<{ status: number; json: Record<string, unknown> }>;

export function jsonPoster(url: string): JsonPost {
  return async (path, body) => {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    return { status: res.status, json };
  };
}

/**
 * Reads a user's getTrips of `day` every `pollMs` until it holds `trips` trips, as the phone does after a put; resolves
 * with the milliseconds since `since`. Throws after `timeoutMs` without them.
 */
export async function tripsServed(
  post: JsonPost,
  user: string,
  { day, trips }: { day: string; trips: number },
  { since, pollMs, timeoutMs }: { since: number; pollMs: number; timeoutMs: number },
): Promise<number> {
  for (;;) {
    const t = await post(`/timeline/getTrips/${day}`, { user });
    if (Array.isArray(t.json['timeline']) && t.json['timeline'].length >= trips) return performance.now() - since;
    if (performance.now() - since > timeoutMs) throw new Error('bench: trips never served');
    await sleep(pollMs);
  }
}
