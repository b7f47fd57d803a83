/**
 * The services of the cluster fault test, each its own process (as `npm start` and production run them) so the test
 * can kill -9 it, watched by a small supervisor that starts it again when it exits, as systemd or Kubernetes would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { freePort } from '../helpers/free-port.js';
import { serviceEnv, type TestEnv } from '../helpers/test-env.js';

const repoRoot = resolve(import.meta.dirname, '..', '..');

export interface Supervised {
  readonly name: string;
  /** Exits nobody asked for (a worker's onFatal exits 1 so that its supervisor starts a fresh one). */
  readonly unexpectedExits: number;
  /** kill -9, then started again at once by the supervisor. */
  kill9(): Promise<void>;
  /** SIGTERM, not restarted. */
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((r) =>
    child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', () => r()),
  );
}

export function supervise(
  name: string,
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  outFile: string,
): Supervised {
  let child: ChildProcess;
  let stopping = false;
  let killing = false;
  let unexpectedExits = 0;
  const launch = () => {
    const out = openSync(outFile, 'a');
    child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, script), ...args], {
      env,
      stdio: ['ignore', out, out],
    });
    // The child holds its own copy of the descriptor; ours would leak one per restart.
    closeSync(out);
    child.once('exit', () => {
      if (stopping) return;
      if (!killing) unexpectedExits += 1;
      killing = false;
      setTimeout(() => {
        if (!stopping) launch();
      }, 500);
    });
  };
  launch();
  return {
    name,
    get unexpectedExits() {
      return unexpectedExits;
    },
    async kill9() {
      killing = true;
      const current = child;
      current.kill('SIGKILL');
      await exited(current);
    },
    async stop() {
      stopping = true;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited(child);
      clearTimeout(timer);
    },
  };
}

export async function waitHealthy(url: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`${url} never answered /health`);
}

/** Itinera as production runs it: two gateways, two converters, two trip builders, each its own supervised process. */
export interface Itinera {
  urls: string[];
  gateways: Supervised[];
  converters: Supervised[];
  tripBuilders: Supervised[];
  all(): Supervised[];
  stop(): Promise<void>;
}

export async function startItinera(env: TestEnv, logDir: string, instances = 2): Promise<Itinera> {
  const common = serviceEnv(env, { ITINERA_LOG_DIR: logDir, ITINERA_INTAKE_LOG_DIR: logDir });
  const ports = await Promise.all(Array.from({ length: instances }, () => freePort()));
  const n = Array.from({ length: instances }, (_, i) => i);
  const gateways = n.map((i) =>
    supervise(
      `gateway ${i}`,
      'services/gateway/main.ts',
      [],
      // A log directory each: two processes rotating one webserver.log would rename it under each other.
      {
        ...common,
        WEBSERVER_HOST: '127.0.0.1',
        WEBSERVER_PORT: String(ports[i]),
        ITINERA_LOG_DIR: join(logDir, `gateway-${i}`),
      },
      join(logDir, `gateway-${i}.out`),
    ),
  );
  // Worker numbers only name the intake log files; the consumer group shares the partitions between them.
  const converters = n.map((i) =>
    supervise(`converter ${i}`, 'services/converter/main.ts', [String(i)], common, join(logDir, `converter-${i}.out`)),
  );
  const tripBuilders = n.map((i) =>
    supervise(
      `trip builder ${i}`,
      'services/trip-builder/main.ts',
      [String(i)],
      common,
      join(logDir, `trip-builder-${i}.out`),
    ),
  );
  const urls = ports.map((p) => `http://127.0.0.1:${p}`);
  const all = () => [...gateways, ...converters, ...tripBuilders];
  try {
    await Promise.all(urls.map((u) => waitHealthy(u)));
  } catch (err) {
    // Supervisors left running would restart the services after the suite has gone.
    await Promise.all(all().map((s) => s.stop()));
    throw err;
  }
  return {
    urls,
    gateways,
    converters,
    tripBuilders,
    all,
    async stop() {
      await Promise.all(all().map((s) => s.stop()));
    },
  };
}
