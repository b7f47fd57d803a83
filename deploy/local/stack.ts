/**
 * The local single-node stack: Kafka (KRaft), Cassandra and Apicurio Registry as plain `java` processes, with
 * jars resolved from Maven Central by `mvn` into `.infra/` (offline first once they are there).
 *
 *   npm run stack -- up [--quiet]     install what is missing, start what is stopped, provision
 *   npm run stack -- down [--wipe]    stop all three (SIGTERM, then SIGKILL after 30 s); --wipe deletes data
 *   npm run stack -- status           pid, readiness and resident memory of each server
 *   npm run stack -- logs [server]    the last 80 lines of a server's log
 *
 * With `--nodes 3` each command acts on the local three-node cluster instead (deploy/local/cluster.ts: three brokers,
 * three Cassandra nodes and a registry on 127.0.0.2-4, replication 3), which runs beside the single-node stack:
 *   npm run stack -- up --nodes 3 [--no-provision] | down --nodes 3 [--wipe] | status --nodes 3 | logs --nodes 3 cassandra-2
 * (`--no-provision`: the servers only, for a caller that provisions keyspaces and topics of its own, as the cluster
 * suite does.)
 *
 * `npm run stack` runs the build (node dist/deploy/local/stack.js); the tests and the benchmark run this source
 * through tsx (npx tsx deploy/local/stack.ts up), which does the same.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfig } from '../../shared/config/index.js';
import { repoRoot } from '../../shared/config/repo-root.js';
import { StackError } from '../../shared/errors/index.js';
import { provision } from '../provision/provision.js';
import { localAddresses, servers } from './servers.js';
import { clusterContext, clusterDown, clusterLogs, clusterStatus, clusterUp, CLUSTER_SIZE } from './cluster.js';
import { probe } from './readiness.js';
import {
  findJava,
  isAlive,
  logFile,
  readPid,
  residentMemoryMb,
  say,
  startServer,
  stopServer,
  tail,
  waitReady,
  type StackContext,
} from './server-process.js';

async function up(ctx: StackContext): Promise<void> {
  const t0 = Date.now();
  mkdirSync(ctx.infraDir, { recursive: true });
  const pending: Promise<void>[] = [];
  for (const spec of servers) {
    const running = readPid(ctx, spec);
    if (running !== undefined) {
      pending.push(waitReady(ctx, spec, running).then(() => say(ctx, `${spec.name} already running (pid ${running})`)));
      continue;
    }
    if (await probe(spec.name, ctx.config)) {
      say(ctx, `${spec.name} answers at its configured address; using it as is`);
      continue;
    }
    say(ctx, `${spec.name} starting (log ${logFile(ctx, spec)})`);
    pending.push(
      startServer(ctx, spec).then(({ pid, seconds }) =>
        say(ctx, `${spec.name} ready in ${seconds.toFixed(1)} s (pid ${pid})`),
      ),
    );
  }
  await Promise.all(pending);
  const report = await provision(ctx.config);
  say(
    ctx,
    `provisioned: ${report.topics} topics, schema version ${report.schemaVersion}, ${report.subjects} Avro subjects`,
  );
  say(ctx, `stack up in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

/** Stops the services `npm start` runs (services/all-in-one.ts), so nothing is left using the servers. */
async function stopServices(ctx: StackContext): Promise<void> {
  const file = join(ctx.infraDir, 'services.pid');
  if (!existsSync(file)) return;
  const pid = Number(readFileSync(file, 'utf8').trim());
  if (Number.isInteger(pid) && isAlive(pid)) {
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + 10_000;
    while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    say(ctx, `services stopped (pid ${pid})`);
  }
  rmSync(file, { force: true });
}

async function down(ctx: StackContext, wipe: boolean): Promise<void> {
  await stopServices(ctx);
  // Registry first, Cassandra last: nothing depends on the registry, and Cassandra drains its memtables on SIGTERM.
  for (const spec of [...servers].reverse()) {
    const pid = await stopServer(ctx, spec);
    if (pid !== undefined) say(ctx, `${spec.name} stopped (pid ${pid})`);
    if (wipe) {
      rmSync(join(ctx.infraDir, spec.dir, 'data'), { recursive: true, force: true });
      rmSync(join(ctx.infraDir, spec.dir, 'cluster-id'), { force: true });
      say(ctx, `${spec.name} data wiped`);
    }
  }
}

async function status(ctx: StackContext): Promise<boolean> {
  let allReady = true;
  for (const spec of servers) {
    const pid = readPid(ctx, spec);
    const ready = await probe(spec.name, ctx.config);
    allReady &&= ready;
    const rss = pid === undefined ? undefined : residentMemoryMb(pid);
    process.stdout.write(
      `${spec.name.padEnd(10)} ${ready ? 'ready' : 'down '}  pid ${pid ?? '-'}  rss ${rss === undefined ? '-' : `${rss} MB`}\n`,
    );
  }
  return allReady;
}

/** `--nodes N` anywhere in the arguments: 1 (the default) is the single-node stack, 3 the local cluster. */
function takeNodes(argv: string[]): { nodes: number; rest: string[] } {
  const at = argv.indexOf('--nodes');
  if (at < 0) return { nodes: 1, rest: argv };
  const nodes = Number(argv[at + 1]);
  if (nodes !== 1 && nodes !== CLUSTER_SIZE)
    throw new StackError(`--nodes must be 1 or ${CLUSTER_SIZE}, got ${argv[at + 1] ?? 'nothing'}`);
  return { nodes, rest: [...argv.slice(0, at), ...argv.slice(at + 2)] };
}

async function cluster(command: string, rest: string[]): Promise<number> {
  const quiet = rest.includes('--quiet');
  switch (command) {
    case 'up':
      await clusterUp(clusterContext(findJava(), quiet), { provision: !rest.includes('--no-provision') });
      return 0;
    case 'down':
      await clusterDown(clusterContext('java', quiet), rest.includes('--wipe'));
      return 0;
    case 'status':
      return (await clusterStatus(clusterContext('java', quiet))) ? 0 : 1;
    case 'logs':
      process.stdout.write(`${clusterLogs(clusterContext('java'), rest[0] ?? 'kafka-1')}\n`);
      return 0;
    default:
      process.stderr.write('usage: stack.ts up|down [--wipe]|status|logs [node] --nodes 3\n');
      return 2;
  }
}

async function main(args: string[]): Promise<number> {
  const { nodes, rest: argv } = takeNodes(args);
  const [command = 'status', ...rest] = argv;
  if (nodes === CLUSTER_SIZE) return cluster(command, rest);
  const config = loadConfig({ confDir: join(repoRoot, 'conf') });
  const infraDir = resolve(process.env['ITINERA_INFRA_DIR'] ?? join(repoRoot, '.infra'));
  const quiet = rest.includes('--quiet');
  const base = { config, infraDir, addresses: localAddresses(config), quiet };
  switch (command) {
    case 'up':
      await up({ ...base, java: findJava() });
      return 0;
    case 'down':
      await down({ ...base, java: 'java' }, rest.includes('--wipe'));
      return 0;
    case 'status':
      return (await status({ ...base, java: 'java' })) ? 0 : 1;
    case 'logs': {
      const spec = servers.find((s) => s.name === (rest[0] ?? 'kafka'));
      if (!spec)
        throw new StackError(`unknown server ${rest[0] ?? ''}; one of ${servers.map((s) => s.name).join(', ')}`);
      process.stdout.write(`${tail(join(infraDir, spec.dir, 'server.log'), 80)}\n`);
      return 0;
    }
    default:
      process.stderr.write('usage: stack.ts up [--quiet] | down [--wipe] | status | logs [kafka|cassandra|registry]\n');
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`[stack] ${err instanceof Error ? err.message : String(err)}\n`);
    if (err instanceof StackError && err.details['output']) process.stderr.write(`${String(err.details['output'])}\n`);
    process.exit(1);
  },
);
