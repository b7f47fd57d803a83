/**
 * The faults of the cluster suite: one cycle kill -9s a broker and a Cassandra node together (and starts each again)
 * and, while they are away, a converter, a trip builder and a gateway (their supervisor starts them again), and keeps
 * the evidence that each kill took effect and its target came back.
 *
 * ITINERA_CLUSTER_CYCLES sets the number of cycles, five faults each: by default three, the fewest that kill every
 * broker, Cassandra node and service (EVERY_TARGET_CYCLES); `npm run test:cluster:full` runs ten.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { clusterNodes, killNode, nodePid, portOpen, startNode, type ClusterNode } from '../../deploy/local/cluster.js';
import { groupName, type GroupId } from '../../shared/events/index.js';
import { waitFor } from '../helpers/test-env.js';
import { cassandraNodeBack, log, replicasInSync } from './checks.js';
import type { PutTally } from './phones.js';
import { PHONES, type ClusterRig } from './rig.js';
import { INSTANCES, waitHealthy, type Supervised } from './services.js';

export const brokers = clusterNodes.filter((n) => n.kind === 'kafka');
export const cassandraNodes = clusterNodes.filter((n) => n.kind === 'cassandra');
/**
 * Cycle c kills one broker, one Cassandra node and one instance of each service, going round each list in turn
 * (targetsOf), so as many cycles as the longest list is long kill every one of them: three, as there are three brokers
 * and three Cassandra nodes (and two instances of each service).
 */
export const EVERY_TARGET_CYCLES = Math.max(brokers.length, cassandraNodes.length, INSTANCES);
export const CYCLES = Number(process.env['ITINERA_CLUSTER_CYCLES'] ?? EVERY_TARGET_CYCLES);
/** How long a killed broker or Cassandra node stays down: past the brokers' 6 s session timeout. */
export const DOWN_MS = 12_000;

/** What cycle `cycle` kills: the Cassandra node one ahead of the broker (kafka-1 with cassandra-2, and so on). */
function targetsOf(rig: ClusterRig, cycle: number) {
  const nth = <T>(list: readonly T[], ahead = 0) => list[(cycle + ahead) % list.length]!;
  return {
    broker: nth(brokers),
    cassandra: nth(cassandraNodes, 1),
    services: [
      ['converter', nth(rig.itinera.converters)],
      ['trip builder', nth(rig.itinera.tripBuilders)],
      ['gateway', nth(rig.itinera.gateways)],
    ] as const,
  };
}

/** One kill, and what was seen of it. */
export interface Fault {
  cycle: number;
  kind: 'broker' | 'cassandra' | 'converter' | 'trip builder' | 'gateway';
  target: string;
  /** The pid the kill ended; undefined when nothing ran to kill. */
  killedPid?: number;
  /** The signal the killed service's exit reported (services only: a server is no child of this process). */
  signal?: NodeJS.Signals | null;
  /** Whether the target's port refused connections while it was down (servers and gateways: workers listen nowhere). */
  refused?: boolean;
  /**
   * The pid of the process that came back, set once it served again: a server answered as a member of the cluster, a
   * gateway its /health, a worker's client joined its consumer group.
   */
  backPid?: number;
  /** Seconds from the kill until the node answered again (servers only). */
  restartS?: number;
}

/** What a fault's record lacks to show that the kill took effect and the target came back. */
export function evidenceGaps(f: Fault): string[] {
  const server = f.kind === 'broker' || f.kind === 'cassandra';
  const worker = f.kind === 'converter' || f.kind === 'trip builder';
  const gaps: string[] = [];
  if (f.killedPid === undefined) gaps.push('no process to kill');
  if (!server && f.signal !== 'SIGKILL') gaps.push(`its exit reported ${String(f.signal)}, not SIGKILL`);
  if (!worker && f.refused !== true) gaps.push('its port still answered while it was down');
  if (f.backPid === undefined) gaps.push('did not serve again');
  else if (f.backPid === f.killedPid) gaps.push('the killed process still ran');
  return gaps;
}

/**
 * Acknowledged puts between one fault and the next, in proportion to the phones (five for 25, ten for 50): each
 * fault falls in the middle of the stream, and fewer phones do not make the waits between faults longer.
 */
const ACKS_BETWEEN_FAULTS = Math.max(3, Math.round(PHONES / 5));

/** Waits until `n` more puts are acknowledged, so each fault falls in the middle of the stream. */
async function moreAcks(tally: PutTally, n: number): Promise<void> {
  const target = tally.acks.length + n;
  await waitFor(async () => (tally.acks.length >= target ? true : undefined), 300_000, `${n} more acknowledged puts`);
}

/** The member ids `clientId` holds in `group` (kafkajs names a member after its client id, plus a fresh suffix). */
async function membersOf(rig: ClusterRig, presence: { group: GroupId; clientId: string }): Promise<Set<string>> {
  const { groups } = await rig.admin.describeGroups([groupName(rig.env.config.kafka.topicPrefix, presence.group)]);
  return new Set(groups[0]?.members.filter((m) => m.clientId === presence.clientId).map((m) => m.memberId));
}

/**
 * Kills a service; `back` settles once a new process serves in its place: a gateway answers /health, a worker's client
 * holds a member id in its group that it did not hold before the kill (the killed one's lingers until its session
 * ends).
 */
async function killService(rig: ClusterRig, fault: Fault, service: Supervised): Promise<{ back: Promise<void> }> {
  const { presence } = service;
  const before =
    'group' in presence
      ? await waitFor(() => membersOf(rig, presence), 180_000, `${presence.clientId}'s members in its group`)
      : new Set<string>();
  const exit = await service.kill9();
  fault.killedPid = exit.pid;
  fault.signal = exit.signal;
  // The supervisor starts the next process half a second after the exit, and that one takes seconds to listen.
  if ('url' in presence) {
    const { hostname, port } = new URL(presence.url);
    fault.refused = !(await portOpen(hostname, Number(port)));
  }
  log(`cycle ${fault.cycle}: kill -9 ${service.name} (pid ${exit.pid}, ${String(exit.signal ?? exit.code)})`);
  const back = async () => {
    const pid = await waitFor(
      async () => (service.pid !== undefined && service.pid !== exit.pid ? service.pid : undefined),
      120_000,
      `the supervisor to start ${service.name} again`,
    );
    if ('url' in presence) await waitHealthy(presence.url, 600_000);
    else
      await waitFor(
        async () => ([...(await membersOf(rig, presence))].some((id) => !before.has(id)) ? true : undefined),
        600_000,
        `${service.name} to join its group again`,
      );
    fault.backPid = pid;
  };
  return { back: back() };
}

/**
 * One cycle: a broker and a Cassandra node are killed together (one of three of each, which replication survives) and
 * started again after DOWN_MS; while they are away, a converter, a trip builder and a gateway are killed in turn
 * (their supervisor starts them again). A cycle lasts until every target serves again, which is as long as the slower
 * server takes to come back, not the sum of five restarts: on two cores a JVM starting beside five others and the load
 * takes minutes.
 */
export async function injectFaults(rig: ClusterRig, cycle: number, tally: PutTally, faults: Fault[]): Promise<void> {
  const server = async (kind: 'broker' | 'cassandra', node: ClusterNode) => {
    const fault: Fault = { cycle, kind, target: node.name };
    faults.push(fault);
    const refused = async () => !(await portOpen(node.host, Number(node.address.split(':').at(-1))));
    const at = Date.now();
    fault.killedPid = await killNode(rig.ctx, node);
    fault.refused = await refused();
    log(`cycle ${cycle}: kill -9 ${node.name} (pid ${fault.killedPid ?? 'none: it was not running'})`);
    await sleep(DOWN_MS);
    // Down for the whole window, not just as the kill landed.
    fault.refused &&= await refused();
    await startNode(rig.ctx, node);
    fault.restartS = (Date.now() - at) / 1000;
    log(`cycle ${cycle}: ${node.name} back after ${fault.restartS.toFixed(1)} s`);
    if (kind === 'broker') await replicasInSync(rig.env, rig.admin);
    else await cassandraNodeBack(rig.env, node);
    fault.backPid = nodePid(rig.ctx, node);
  };
  const comingBack: Promise<void>[] = [];
  const awaitedBelow = (back: Promise<void>) => {
    // Until then a failure must not count as unhandled.
    back.catch(() => undefined);
    comingBack.push(back);
  };
  const targets = targetsOf(rig, cycle);
  await moreAcks(tally, ACKS_BETWEEN_FAULTS);
  awaitedBelow(server('broker', targets.broker));
  awaitedBelow(server('cassandra', targets.cassandra));
  for (const [kind, service] of targets.services) {
    await moreAcks(tally, ACKS_BETWEEN_FAULTS);
    const fault: Fault = { cycle, kind, target: service.name };
    faults.push(fault);
    awaitedBelow((await killService(rig, fault, service)).back);
  }
  await Promise.all(comingBack);
  await moreAcks(tally, ACKS_BETWEEN_FAULTS);
}
