/**
 * `npm run stack -- up|down|status|logs --nodes 3`: the local three-node cluster as a whole (its nodes, addresses and
 * heaps are in cluster-nodes.ts). `up` starts what is stopped and provisions with replication 3; `clusterEnv()` is
 * what a service needs to use it, also written to `.infra/cluster/cluster.env`.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StackError } from '../../shared/errors/index.js';
import { provision } from '../provision/provision.js';
import { residentMemoryMb, say, tail } from './server-process.js';
import {
  checkFree,
  installServers,
  CLUSTER_SIZE,
  clusterConfig,
  clusterEnv,
  clusterNode,
  clusterNodes,
  nodeAnswers,
  nodeLog,
  nodePid,
  registeredBrokers,
  seesWholeRing,
  startNode,
  stopNode,
  type ClusterContext,
  type ClusterNode,
} from './cluster-nodes.js';

export * from './cluster-nodes.js';
function envFile(ctx: ClusterContext): string {
  return join(ctx.clusterDir, 'cluster.env');
}

/**
 * Starts what is stopped: the three brokers together (a KRaft quorum needs two voters to elect a leader) while the
 * Cassandra nodes start one after another, the seed first (a node joins the ring through the ones already up);
 * the registry beside them; then, unless `provision` is false, provisions topics, keyspace and subjects with
 * replication 3.
 */
export async function clusterUp(ctx: ClusterContext, { provision: provisions = true } = {}): Promise<void> {
  const t0 = Date.now();
  mkdirSync(ctx.clusterDir, { recursive: true });
  for (const node of clusterNodes) await checkFree(ctx, node);
  installServers(ctx);
  const started = (node: ClusterNode, seconds: number) =>
    say(ctx, seconds === 0 ? `${node.name} already running` : `${node.name} ready in ${seconds.toFixed(1)} s`);
  const kafka = Promise.all(
    clusterNodes.filter((n) => n.kind === 'kafka').map(async (n) => started(n, await startNode(ctx, n))),
  );
  const cassandra = (async () => {
    for (const n of clusterNodes.filter((x) => x.kind === 'cassandra')) started(n, await startNode(ctx, n));
  })();
  // The registry keeps its schemas in a file of its own (H2): it needs neither Kafka nor Cassandra to start.
  const registry = (async () => started(clusterNode('registry'), await startNode(ctx, clusterNode('registry'))))();
  await Promise.all([kafka, cassandra, registry]);
  const brokers = clusterEnv()['KAFKA_BROKERS']!.split(',');
  await within(
    60,
    `${CLUSTER_SIZE} brokers registered`,
    async () => (await registeredBrokers(brokers)) === CLUSTER_SIZE,
  );
  for (const node of clusterNodes.filter((n) => n.kind === 'cassandra'))
    await within(120, `${node.name} to see every Cassandra node up`, () => seesWholeRing(node));
  if (provisions) {
    const report = await provision(clusterConfig());
    say(
      ctx,
      `provisioned: ${report.topics} topics (replication 3, min.insync.replicas 2), keyspace RF 3, schema version ${report.schemaVersion}, ${report.subjects} Avro subjects`,
    );
  }
  const env = clusterEnv();
  writeFileSync(
    envFile(ctx),
    `${Object.entries(env)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n')}\n`,
  );
  say(ctx, `cluster up in ${((Date.now() - t0) / 1000).toFixed(1)} s; its environment is in ${envFile(ctx)}`);
}

/** Asks `done` every half second until it says yes; a StackError naming `what` after `seconds`. */
async function within(seconds: number, what: string, done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new StackError(`waited ${seconds} s for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

export async function clusterDown(ctx: ClusterContext, wipe: boolean): Promise<void> {
  // Registry and brokers first, then the Cassandra nodes (which drain their memtables on SIGTERM), all in parallel.
  const stop = async (nodes: readonly ClusterNode[]) =>
    Promise.all(
      nodes.map(async (n) => {
        const pid = await stopNode(ctx, n);
        if (pid !== undefined) say(ctx, `${n.name} stopped (pid ${pid})`);
      }),
    );
  await stop(clusterNodes.filter((n) => n.kind !== 'cassandra'));
  await stop(clusterNodes.filter((n) => n.kind === 'cassandra'));
  if (wipe && existsSync(ctx.clusterDir)) {
    for (const entry of readdirSync(ctx.clusterDir))
      rmSync(join(ctx.clusterDir, entry), { recursive: true, force: true });
    say(ctx, `cluster data wiped (${ctx.clusterDir})`);
  }
}

export async function clusterStatus(ctx: ClusterContext): Promise<boolean> {
  let allReady = true;
  for (const node of clusterNodes) {
    const pid = nodePid(ctx, node);
    const ready = pid !== undefined && (await nodeAnswers(node));
    allReady &&= ready;
    const rss = pid === undefined ? undefined : residentMemoryMb(pid);
    const where = node.kind === 'registry' ? node.address.replace(/\/apis.*$/, '') : node.address;
    process.stdout.write(
      `${node.name.padEnd(12)} ${ready ? 'ready' : 'down '}  ${where.padEnd(22)} pid ${pid ?? '-'}  rss ${rss === undefined ? '-' : `${rss} MB`}\n`,
    );
  }
  if (allReady) {
    process.stdout.write('\nenvironment for the services (also in .infra/cluster/cluster.env):\n');
    for (const [k, v] of Object.entries(clusterEnv())) process.stdout.write(`  ${k}=${v}\n`);
  }
  return allReady;
}

export function clusterLogs(ctx: ClusterContext, name: string): string {
  const node = clusterNodes.find((n) => n.name === name);
  if (!node) throw new StackError(`unknown cluster node ${name}; one of ${clusterNodes.map((n) => n.name).join(', ')}`);
  return tail(nodeLog(ctx, node), 80);
}
