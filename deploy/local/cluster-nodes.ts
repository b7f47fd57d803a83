/**
 * The nodes of the local three-node cluster (`npm run stack -- up --nodes 3`; cluster.ts starts and stops them): three Kafka brokers that are also the three voters
 * of the KRaft controller quorum, three Cassandra nodes, and an Apicurio Registry, as plain `java` processes beside
 * the single-node stack, sharing its jars (resolved once into `.infra/kafka`, `.infra/cassandra`, `.infra/apicurio`)
 * but nothing else: config, data, logs and pids are under `.infra/cluster/<node>/`.
 *
 * Addresses: node i (1-3) listens on 127.0.0.(i+1) with the standard ports (Kafka 9092, its controller 9093,
 * Cassandra native 9042 and storage 7000); the registry on 127.0.0.2:8081. The single-node stack binds 127.0.0.1
 * only, so nothing collides. Linux routes all of 127.0.0.0/8 to the loopback interface: no setup needed.
 *
 * Heaps (2 cores, 24 GiB, the single-node stack of ~3 GB beside it): Kafka -Xmx512m (initial 384m) each, Cassandra
 * -Xmx640m each (memtables 96+96 MiB, file cache 64 MiB), registry -Xmx384m: about 3.8 GB of heap, some 5.5 GB
 * resident for the whole cluster.
 *
 * Replication: topics get the brokers' default.replication.factor 3 and min.insync.replicas 2 (deploy/provision
 * reads it), the keyspace NetworkTopologyStrategy with 3 replicas in datacenter1 (CASSANDRA_REPLICATION_FACTOR=3),
 * and every query runs at LOCAL_QUORUM (shared/cassandra). `clusterEnv()` is what a service needs to use it;
 * `up` also writes it to `.infra/cluster/cluster.env`.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { consistencies, createCassandraClient } from '../../shared/cassandra/index.js';
import { loadConfig, type Config } from '../../shared/config/index.js';
import { repoRoot } from '../../shared/config/repo-root.js';
import { StackError } from '../../shared/errors/index.js';
import { registryAnswers } from '../../shared/health/index.js';
import { withProbeAdmin } from './readiness.js';
import { APICURIO_VERSION, launchArgs, localAddresses, servers, type ServerSpec } from './servers.js';
import {
  formatKafkaStorage,
  install,
  isAlive,
  launchDetached,
  newKafkaClusterId,
  tail,
  terminate,
  type StackContext,
} from './server-process.js';

export const CLUSTER_SIZE = 3;
const HOSTS = ['127.0.0.2', '127.0.0.3', '127.0.0.4'] as const;
const KAFKA_PORT = 9092;
const KAFKA_CONTROLLER_PORT = 9093;
const CASSANDRA_PORT = 9042;
const CASSANDRA_STORAGE_PORT = 7000;
const REGISTRY_HOST = HOSTS[0];
const REGISTRY_PORT = 8081;

/**
 * Heaps of the cluster's servers (see the header comment for the arithmetic). The brokers and Cassandra nodes compile
 * with C1 only: seven JVMs share the machine's cores, and at every (re)start the optimising compiler's threads took
 * the cores the starting node and its neighbours needed, for a steady-state speed the cluster's load never asks for.
 */
export const CLUSTER_HEAPS = {
  kafka: '-Xms384m -Xmx512m -XX:TieredStopAtLevel=1',
  cassandra: '-Xms640m -Xmx640m -XX:TieredStopAtLevel=1',
  registry: '-Xms128m -Xmx384m',
} as const;

/** Murmur3 tokens splitting the ring in three equal parts, one per node. */
const TOKENS = ['-9223372036854775808', '-3074457345618258603', '3074457345618258602'] as const;

export type ClusterKind = 'kafka' | 'cassandra' | 'registry';

export interface ClusterNode {
  kind: ClusterKind;
  /** 1-3 for brokers and Cassandra nodes, 1 for the registry. */
  index: number;
  /** `kafka-1`, `cassandra-2`, `registry`: its folder under `.infra/cluster`. */
  name: string;
  host: string;
  /** Where clients reach it: `host:port`, or the registry's URL. */
  address: string;
}

/** One node of `kind` on each host, node i on the i-th, all at the kind's standard port. */
function onEveryHost(kind: 'kafka' | 'cassandra', port: number): ClusterNode[] {
  return HOSTS.map((host, i) => ({ kind, index: i + 1, name: `${kind}-${i + 1}`, host, address: `${host}:${port}` }));
}

export const clusterNodes: readonly ClusterNode[] = [
  ...onEveryHost('kafka', KAFKA_PORT),
  ...onEveryHost('cassandra', CASSANDRA_PORT),
  {
    kind: 'registry',
    index: 1,
    name: 'registry',
    host: REGISTRY_HOST,
    address: `http://${REGISTRY_HOST}:${REGISTRY_PORT}/apis/ccompat/v7`,
  },
];

export function clusterNode(kind: ClusterKind, index = 1): ClusterNode {
  const node = clusterNodes.find((n) => n.kind === kind && n.index === index);
  if (!node) throw new StackError(`no ${kind} node ${index} in the cluster`);
  return node;
}

/** The environment a service, the CLI, the console or provisioning needs to run against the cluster. */
export function clusterEnv(): Record<string, string> {
  const of = (kind: ClusterKind) =>
    clusterNodes
      .filter((n) => n.kind === kind)
      .map((n) => n.address)
      .join(',');
  return {
    KAFKA_BROKERS: of('kafka'),
    CASSANDRA_CONTACT_POINTS: of('cassandra'),
    CASSANDRA_REPLICATION_FACTOR: String(CLUSTER_SIZE),
    SCHEMA_REGISTRY_URL: of('registry'),
  };
}

/** conf/ with the cluster's addresses and replication over it (they win over the environment's). */
export function clusterConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfig({ confDir: join(repoRoot, 'conf'), env: { ...env, ...clusterEnv() } });
}

export interface ClusterContext {
  /** The single-node stack's infra folder, whose jars the cluster shares (`.infra`). */
  infraDir: string;
  /** `.infra/cluster`: everything of the cluster's own. */
  clusterDir: string;
  java: string;
  quiet: boolean;
}

export function clusterContext(java: string, quiet = false): ClusterContext {
  const infraDir = resolve(process.env['ITINERA_INFRA_DIR'] ?? join(repoRoot, '.infra'));
  return { infraDir, clusterDir: join(infraDir, 'cluster'), java, quiet };
}

const templates = join(repoRoot, 'deploy', 'local');

function specOf(kind: ClusterKind): ServerSpec {
  const spec = servers.find((s) => s.name === kind);
  if (!spec) throw new StackError(`no server spec ${kind}`);
  return { ...spec, heap: CLUSTER_HEAPS[kind] };
}

export function nodeHome(ctx: ClusterContext, node: ClusterNode): string {
  return join(ctx.clusterDir, node.name);
}

export function nodeLog(ctx: ClusterContext, node: ClusterNode): string {
  return join(nodeHome(ctx, node), 'server.log');
}

function nodePidFile(ctx: ClusterContext, node: ClusterNode): string {
  return join(nodeHome(ctx, node), 'server.pid');
}

/** The node's pid while its process lives, else undefined. */
export function nodePid(ctx: ClusterContext, node: ClusterNode): number | undefined {
  const file = nodePidFile(ctx, node);
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : undefined;
}

function render(template: string, values: Record<string, string | number>): string {
  return template.replace(/\$\{([A-Z_]+)\}/g, (_, key: string) => {
    const value = values[key];
    if (value === undefined) throw new StackError(`template variable ${key} has no value`);
    return String(value);
  });
}

/** Links `target` at `link` unless something is there already. */
function linkOnce(target: string, link: string): void {
  try {
    lstatSync(link);
  } catch {
    symlinkSync(target, link);
  }
}

/**
 * Resolves the servers' jars into the single-node stack's folders (`.infra/<server>`) if they are missing, as
 * `stack up` does, one server after another (three brokers must not run Maven into the same folder at once).
 */
export function installServers(ctx: ClusterContext): void {
  const config = clusterConfig();
  for (const kind of ['kafka', 'cassandra', 'registry'] as const) {
    const stackCtx: StackContext = {
      config,
      infraDir: ctx.infraDir,
      java: ctx.java,
      addresses: localAddresses(config),
      quiet: ctx.quiet,
    };
    install(stackCtx, specOf(kind));
  }
}

/** The shared jars linked into the node's folder. */
function linkJars(ctx: ClusterContext, node: ClusterNode): void {
  const shared = join(ctx.infraDir, specOf(node.kind).dir);
  const home = nodeHome(ctx, node);
  if (node.kind === 'registry') {
    const jar = `apicurio-registry-app-${APICURIO_VERSION}-runner.jar`;
    linkOnce(join(shared, jar), join(home, jar));
    linkOnce(join(shared, 'lib'), join(home, 'lib'));
  } else {
    linkOnce(join(shared, 'libs'), join(home, 'libs'));
  }
}

function kafkaClusterId(ctx: ClusterContext): string {
  const file = join(ctx.clusterDir, 'kafka-cluster-id');
  // Fixed once: every broker's storage is formatted with it.
  if (!existsSync(file)) writeFileSync(file, newKafkaClusterId());
  return readFileSync(file, 'utf8').trim();
}

/** Writes the node's configuration (formats a broker's storage the first time); returns the extra JVM options. */
function configure(ctx: ClusterContext, node: ClusterNode): string[] {
  const home = nodeHome(ctx, node);
  mkdirSync(join(home, 'data'), { recursive: true });
  mkdirSync(join(home, 'logs'), { recursive: true });
  linkJars(ctx, node);
  if (node.kind === 'kafka') {
    const voters = clusterNodes
      .filter((n) => n.kind === 'kafka')
      .map((n) => `${n.index}@${n.host}:${KAFKA_CONTROLLER_PORT}`)
      .join(',');
    const properties = render(readFileSync(join(templates, 'kafka', 'server-cluster.properties'), 'utf8'), {
      NODE_ID: node.index,
      QUORUM_VOTERS: voters,
      KAFKA_HOST: node.host,
      KAFKA_PORT,
      KAFKA_CONTROLLER_PORT,
      KAFKA_DATA_DIR: join(home, 'data'),
    });
    writeFileSync(join(home, 'server.properties'), properties);
    // Formatted once; a restart (after a kill -9 above all) skips the extra JVM start.
    if (existsSync(join(home, 'data', 'meta.properties'))) return [];
    formatKafkaStorage(ctx.java, home, kafkaClusterId(ctx), node.name);
    return [];
  }
  if (node.kind === 'cassandra') {
    mkdirSync(join(home, 'conf'), { recursive: true });
    mkdirSync(join(home, 'tmp'), { recursive: true });
    const seed = clusterNode('cassandra', 1);
    const yaml = render(readFileSync(join(templates, 'cassandra', 'cassandra-cluster.yaml'), 'utf8'), {
      INITIAL_TOKEN: TOKENS[node.index - 1] ?? '0',
      CASSANDRA_SEEDS: `${seed.host}:${CASSANDRA_STORAGE_PORT}`,
      CASSANDRA_HOST: node.host,
      CASSANDRA_PORT,
      CASSANDRA_STORAGE_PORT,
      CASSANDRA_DATA_DIR: join(home, 'data'),
    });
    writeFileSync(join(home, 'conf', 'cassandra.yaml'), yaml);
    writeFileSync(join(home, 'conf', 'logback.xml'), readFileSync(join(templates, 'cassandra', 'logback.xml')));
    return (
      readFileSync(join(templates, 'cassandra', 'jvm17.options'), 'utf8')
        .split('\n')
        .map((l) => l.trim())
        // The single node's token comes as a system property, which would override the yaml's per-node token.
        .filter((l) => l && !l.startsWith('#') && !l.startsWith('-Dcassandra.initial_token='))
    );
  }
  return [];
}

/** Launches the node's process detached (it outlives this one); returns its pid. */
export function launchNode(ctx: ClusterContext, node: ClusterNode): number {
  const home = nodeHome(ctx, node);
  const jvmOptions = configure(ctx, node);
  const addresses = {
    kafka: { host: node.host, port: KAFKA_PORT, controllerPort: KAFKA_CONTROLLER_PORT },
    cassandra: { host: node.host, port: CASSANDRA_PORT, storagePort: CASSANDRA_STORAGE_PORT },
    registry: { host: REGISTRY_HOST, port: REGISTRY_PORT },
  };
  return launchDetached(ctx.java, launchArgs(specOf(node.kind), home, addresses, jvmOptions), {
    name: node.name,
    home,
    log: nodeLog(ctx, node),
    pidFile: nodePidFile(ctx, node),
  });
}

export function portOpen(host: string, port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host, port, timeout: 1000 });
    const finish = (open: boolean) => {
      socket.destroy();
      done(open);
    };
    socket.once('connect', () => finish(true));
    socket.once('timeout', () => finish(false));
    socket.once('error', () => finish(false));
  });
}

/** Brokers registered in the cluster (unfenced), as `bootstrap` sees them; undefined when it does not answer. */
export async function registeredBrokers(bootstrap: readonly string[]): Promise<number | undefined> {
  return (await describeBrokers(bootstrap))?.length;
}

/** The registered (unfenced) brokers as `bootstrap` describes them, without retries; undefined when it does not answer. */
async function describeBrokers(bootstrap: readonly string[]): Promise<{ nodeId: number }[] | undefined> {
  try {
    return await withProbeAdmin(
      { clientId: 'itinera-cluster-probe', brokers: bootstrap, requestTimeout: 3000 },
      async (admin) => (await admin.describeCluster()).brokers,
    );
  } catch {
    return undefined;
  }
}

/**
 * Whether the node answers as a member: a broker answers a metadata request itself (it is registered and unfenced
 * once the quorum has a leader), a Cassandra node accepts CQL connections (it opens its native port only after it
 * joined the ring), the registry lists its subjects.
 */
export async function nodeAnswers(node: ClusterNode): Promise<boolean> {
  switch (node.kind) {
    case 'kafka':
      return (await describeBrokers([node.address]))?.some((b) => b.nodeId === node.index) ?? false;
    case 'cassandra':
      return portOpen(node.host, CASSANDRA_PORT);
    case 'registry':
      return registryAnswers(node.address).catch(() => false);
  }
}

/**
 * Whether `node`, as coordinator, holds every node of the ring alive. A node opens its native port before gossip has
 * told it the others are up (the nodes start with skip_wait_for_gossip_to_settle), and until it has, a LOCAL_QUORUM
 * request it coordinates fails with "2 required but only 1 alive". A read at ALL of system_distributed, which keeps
 * three replicas of everything, is refused as unavailable exactly then.
 */
export async function seesWholeRing(node: ClusterNode): Promise<boolean> {
  const { localDataCenter, credentials } = clusterConfig().cassandra;
  const client = createCassandraClient({
    contactPoints: [node.address],
    localDataCenter,
    credentials,
    onlyCoordinator: node.address,
  });
  try {
    await client.execute('SELECT * FROM system_distributed.repair_history LIMIT 1', [], {
      consistency: consistencies.all,
    });
    return true;
  } catch {
    return false;
  } finally {
    await client.shutdown().catch(() => undefined);
  }
}

const READY_TIMEOUT_S: Record<ClusterKind, number> = { kafka: 180, cassandra: 300, registry: 180 };

export async function waitNodeReady(ctx: ClusterContext, node: ClusterNode, pid: number): Promise<number> {
  const started = Date.now();
  const deadline = started + READY_TIMEOUT_S[node.kind] * 1000;
  while (Date.now() < deadline) {
    if (!isAlive(pid))
      throw new StackError(
        `${node.name} exited during start-up. Last lines of ${nodeLog(ctx, node)}:\n${tail(nodeLog(ctx, node))}`,
      );
    if (await nodeAnswers(node)) return (Date.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new StackError(
    `${node.name} not ready after ${READY_TIMEOUT_S[node.kind]} s. Last lines of ${nodeLog(ctx, node)}:\n${tail(nodeLog(ctx, node))}`,
  );
}

/** Starts the node unless it runs, and waits until it answers; returns the seconds it took (0 if it ran). */
export async function startNode(ctx: ClusterContext, node: ClusterNode): Promise<number> {
  const running = nodePid(ctx, node);
  if (running !== undefined) {
    await waitNodeReady(ctx, node, running);
    return 0;
  }
  return waitNodeReady(ctx, node, launchNode(ctx, node));
}

/** `kill -9`: the process is gone when this resolves, without a chance to flush or hand anything over. */
export async function killNode(ctx: ClusterContext, node: ClusterNode): Promise<number | undefined> {
  const pid = nodePid(ctx, node);
  if (pid === undefined) return undefined;
  process.kill(pid, 'SIGKILL');
  while (isAlive(pid)) await new Promise((r) => setTimeout(r, 50));
  return pid;
}

/** SIGTERM, then SIGKILL after `graceMs`. */
export async function stopNode(ctx: ClusterContext, node: ClusterNode, graceMs = 30_000): Promise<number | undefined> {
  const pid = nodePid(ctx, node);
  if (pid !== undefined) await terminate(pid, graceMs);
  rmSync(nodePidFile(ctx, node), { force: true });
  return pid;
}

/** Fails when something else listens where a cluster node is about to (a foreign process, not a node of ours). */
export async function checkFree(ctx: ClusterContext, node: ClusterNode): Promise<void> {
  if (nodePid(ctx, node) !== undefined) return;
  const ports =
    node.kind === 'kafka'
      ? [KAFKA_PORT, KAFKA_CONTROLLER_PORT]
      : node.kind === 'cassandra'
        ? [CASSANDRA_PORT, CASSANDRA_STORAGE_PORT]
        : [REGISTRY_PORT];
  for (const port of ports) {
    if (await portOpen(node.host, port))
      throw new StackError(`${node.host}:${port} is taken by another process; ${node.name} cannot start there`);
  }
}
