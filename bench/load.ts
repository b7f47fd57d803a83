import type { Config } from '../shared/config/index.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

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
