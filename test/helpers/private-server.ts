import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../shared/config/index.js';
import { localAddresses, servers, type ServerSpec } from '../../deploy/local/servers.js';
import {
  findJava,
  install,
  isAlive,
  readPid,
  startServer,
  stopServer,
  type StackContext,
} from '../../deploy/local/server-process.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface PrivateServer {
  /** `host:port` to give the clients: a Kafka bootstrap broker or a Cassandra contact point. */
  readonly address: string;
  /** SIGTERM, then SIGKILL after `graceMs`: the server is gone when this resolves. */
  stop(graceMs?: number): Promise<void>;
  /** Starts it again on the same data folder and waits until it answers. */
  start(): Promise<void>;
  isRunning(): boolean;
  /** Stops it and deletes its folder. */
  dispose(): Promise<void>;
}

/**
 * A second Kafka broker or Cassandra node of its own, on its own ports and data folder, sharing the jars of the
 * local stack. Fault tests stop and restart it at will; the shared servers other test files use are untouched.
 */
export async function startPrivateServer(name: 'kafka' | 'cassandra', port: number): Promise<PrivateServer> {
  const spec = servers.find((s) => s.name === name) as ServerSpec;
  const address = `127.0.0.1:${port}`;
  const config = loadConfig({
    env: {
      ...process.env,
      ...(name === 'kafka' ? { KAFKA_BROKERS: address } : { CASSANDRA_CONTACT_POINTS: address }),
    },
  });
  const java = findJava();
  const sharedInfra = resolve(process.env['ITINERA_INFRA_DIR'] ?? join(repoRoot, '.infra'));
  // The jars come from the local stack's folder (resolved once by Maven); only data and config are private.
  install({ config, infraDir: sharedInfra, java, addresses: localAddresses(config), quiet: true }, spec);
  // A run interrupted before its dispose() leaves its server running on the port; it would answer in place of
  // ours and never go down when the test stops ours. The ledger names it, so it is removed first.
  const ledger = join(sharedInfra, `private-${name}-${port}.json`);
  if (existsSync(ledger)) {
    const stale = JSON.parse(readFileSync(ledger, 'utf8')) as { dir: string };
    const pidFile = join(stale.dir, spec.dir, 'server.pid');
    const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) : NaN;
    if (Number.isInteger(pid) && isAlive(pid)) {
      process.kill(pid, 'SIGKILL');
      while (isAlive(pid)) await new Promise((r) => setTimeout(r, 50));
    }
    rmSync(stale.dir, { recursive: true, force: true });
    rmSync(ledger, { force: true });
  }
  const infraDir = mkdtempSync(join(tmpdir(), `itinera-private-${name}-`));
  mkdirSync(join(infraDir, spec.dir));
  symlinkSync(join(sharedInfra, spec.dir, 'libs'), join(infraDir, spec.dir, 'libs'));
  const ctx: StackContext = {
    config,
    infraDir,
    java,
    addresses: localAddresses(config),
    quiet: true,
    // Smaller heaps than the shared stack: a private server holds one test's data.
    heap: name === 'kafka' ? '-Xms256m -Xmx512m' : '-Xms512m -Xmx512m',
  };
  const running = () => {
    const pid = readPid(ctx, spec);
    return pid !== undefined && isAlive(pid);
  };
  writeFileSync(ledger, JSON.stringify({ dir: infraDir }));
  await startServer(ctx, spec);
  return {
    address,
    async stop(graceMs = 30_000) {
      await stopServer(ctx, spec, graceMs);
    },
    async start() {
      if (!running()) await startServer(ctx, spec);
    },
    isRunning: running,
    async dispose() {
      await stopServer(ctx, spec, 5_000);
      rmSync(infraDir, { recursive: true, force: true });
      rmSync(ledger, { force: true });
    },
  };
}
