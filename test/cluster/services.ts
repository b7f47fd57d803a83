/**
 * The services of the cluster fault test, each its own process (as `npm start` and production run them) so the test
 * can kill -9 it, watched by a small supervisor that starts it again when it exits, as systemd or Kubernetes would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { GroupId } from '../../shared/events/index.js';
import { freePort } from '../helpers/free-port.js';
import { compiled } from './compiled.js';
import { serviceEnv, type TestEnv } from '../helpers/test-env.js';

/**
 * How a running service shows it is serving: a gateway answers /health at `url`; a worker's Kafka client is a member
 * of its consumer group under `clientId` (workerMain names it after the component and the worker number).
 */
export type Presence = { url: string } | { group: GroupId; clientId: string };

/** How a process ended, as its exit event told: the signal that ended it, or null with the code it exited with. */
export interface Exit {
  pid: number;
  signal: NodeJS.Signals | null;
  code: number | null;
}

export interface Supervised {
  readonly name: string;
  readonly presence: Presence;
  /** The current process's pid; undefined between an exit and the supervisor's next start. */
  readonly pid: number | undefined;
  /** Processes the supervisor has started, the first one included. */
  readonly starts: number;
  /** Exits nobody asked for (a worker's onFatal exits 1 so that its supervisor starts a fresh one). */
  readonly unexpectedExits: number;
  /** kill -9 the running process (started again at once by the supervisor); resolves with its exit. */
  kill9(): Promise<Exit>;
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
  presence: Presence,
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  outFile: string,
): Supervised {
  let child: ChildProcess;
  let running = false;
  let stopping = false;
  let killing = false;
  let starts = 0;
  let unexpectedExits = 0;
  const launch = () => {
    starts += 1;
    running = true;
    const out = openSync(outFile, 'a');
    child = spawn(process.execPath, [compiled(script), ...args], {
      env,
      stdio: ['ignore', out, out],
    });
    // The child holds its own copy of the descriptor; ours would leak one per restart.
    closeSync(out);
    child.once('exit', () => {
      running = false;
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
    presence,
    get pid() {
      return running ? child.pid : undefined;
    },
    get starts() {
      return starts;
    },
    get unexpectedExits() {
      return unexpectedExits;
    },
    async kill9() {
      // A process between an exit of its own and the supervisor's next start has nothing to kill yet.
      while (!running) await new Promise((r) => setTimeout(r, 100));
      killing = true;
      const current = child;
      current.kill('SIGKILL');
      await exited(current);
      return { pid: current.pid!, signal: current.signalCode, code: current.exitCode };
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

/** Instances of each service: two, so one serves while the other is killed. */
export const INSTANCES = 2;

/** Itinera as production runs it: two gateways, two converters, two trip builders, each its own supervised process. */
export interface Itinera {
  urls: string[];
  gateways: Supervised[];
  converters: Supervised[];
  tripBuilders: Supervised[];
  all(): Supervised[];
  stop(): Promise<void>;
}

export async function startItinera(env: TestEnv, logDir: string, instances = INSTANCES): Promise<Itinera> {
  const common = serviceEnv(env, { ITINERA_LOG_DIR: logDir, ITINERA_INTAKE_LOG_DIR: logDir });
  const ports = await Promise.all(Array.from({ length: instances }, () => freePort()));
  const n = Array.from({ length: instances }, (_, i) => i);
  const urls = ports.map((p) => `http://127.0.0.1:${p}`);
  const gateways = n.map((i) =>
    supervise(
      `gateway ${i}`,
      { url: urls[i]! },
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
    supervise(
      `converter ${i}`,
      { group: 'converter', clientId: `itinera-converter-${i}` },
      'services/converter/main.ts',
      [String(i)],
      common,
      join(logDir, `converter-${i}.out`),
    ),
  );
  const tripBuilders = n.map((i) =>
    supervise(
      `trip builder ${i}`,
      { group: 'tripBuilder', clientId: `itinera-trip-builder-${i}` },
      'services/trip-builder/main.ts',
      [String(i)],
      common,
      join(logDir, `trip-builder-${i}.out`),
    ),
  );
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
