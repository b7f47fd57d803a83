/**
 * Faults on the local three-node cluster (`npm run test:cluster`). Two gateways, two converters and two trip builders
 * run as their own processes against three brokers (replication 3, min.insync.replicas 2) and three Cassandra nodes
 * (RF 3, LOCAL_QUORUM) while fifty phones push slices of real days, each slice under a fresh user. Each cycle kill
 * -9s one broker and one Cassandra node together (and starts each again) and, while they are away, a converter, a trip
 * builder and a gateway (their supervisor starts them again; a phone whose connection dropped sends its put to the
 * other gateway). Then every kill must have taken effect (the process ended, the port refused connections, a new
 * process served again) on every broker, Cassandra node and service, every user's timeseries must hold exactly its
 * slice's entries, none doubled, every slice's trips must equal a calm build of the same slice, and every put must
 * have answered 200 or an honest 503.
 *
 * ITINERA_CLUSTER_CYCLES sets the number of cycles, five faults each: by default three, the fewest that kill every
 * broker, Cassandra node and service (EVERY_TARGET_CYCLES); `npm run test:cluster:full` runs ten.
 * ITINERA_CLUSTER_PHONES sets the phones (50), ITINERA_CLUSTER_PUT_ENTRIES and ITINERA_CLUSTER_PUT_PAUSE_MS their pace
 * (test/cluster/rig.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { clusterNodes, killNode, nodePid, portOpen, startNode, type ClusterNode } from '../../deploy/local/cluster.js';
import { groupName, type GroupId } from '../../shared/events/index.js';
import { waitFor } from '../helpers/test-env.js';
import {
  cassandraNodeBack,
  expectEveryEntryOnce,
  expectReplicatedProvisioning,
  expectTripsAsCalm,
  log,
  pushCalmSlices,
  replicasInSync,
} from './checks.js';
import { longestGap, newTally, runPhone, type PushedUser, type PutTally } from './phones.js';
import { PACE, paceOf, PHONES, useClusterRig } from './rig.js';
import { INSTANCES, waitHealthy, type Supervised } from './services.js';

const brokers = clusterNodes.filter((n) => n.kind === 'kafka');
const cassandraNodes = clusterNodes.filter((n) => n.kind === 'cassandra');
/**
 * Cycle c kills one broker, one Cassandra node and one instance of each service, going round each list in turn
 * (targetsOf), so as many cycles as the longest list is long kill every one of them: three, as there are three brokers
 * and three Cassandra nodes (and two instances of each service).
 */
const EVERY_TARGET_CYCLES = Math.max(brokers.length, cassandraNodes.length, INSTANCES);
const CYCLES = Number(process.env['ITINERA_CLUSTER_CYCLES'] ?? EVERY_TARGET_CYCLES);
/** How long a killed broker or Cassandra node stays down: past the brokers' 6 s session timeout. */
const DOWN_MS = 12_000;

const rig = useClusterRig('cluster');

/** What cycle `cycle` kills: the Cassandra node one ahead of the broker (kafka-1 with cassandra-2, and so on). */
function targetsOf(cycle: number) {
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
interface Fault {
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
function evidenceGaps(f: Fault): string[] {
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

/** Waits until `n` more puts are acknowledged, so each fault falls in the middle of the stream. */
async function moreAcks(tally: PutTally, n: number): Promise<void> {
  const target = tally.acks.length + n;
  await waitFor(async () => (tally.acks.length >= target ? true : undefined), 300_000, `${n} more acknowledged puts`);
}

/** The member ids `clientId` holds in `group` (kafkajs names a member after its client id, plus a fresh suffix). */
async function membersOf(presence: { group: GroupId; clientId: string }): Promise<Set<string>> {
  const { groups } = await rig.admin.describeGroups([groupName(rig.env.config.kafka.topicPrefix, presence.group)]);
  return new Set(groups[0]?.members.filter((m) => m.clientId === presence.clientId).map((m) => m.memberId));
}

/**
 * Kills a service; `back` settles once a new process serves in its place: a gateway answers /health, a worker's client
 * holds a member id in its group that it did not hold before the kill (the killed one's lingers until its session
 * ends).
 */
async function killService(fault: Fault, service: Supervised): Promise<{ back: Promise<void> }> {
  const { presence } = service;
  const before =
    'group' in presence
      ? await waitFor(() => membersOf(presence), 180_000, `${presence.clientId}'s members in its group`)
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
        async () => ([...(await membersOf(presence))].some((id) => !before.has(id)) ? true : undefined),
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
async function injectFaults(cycle: number, tally: PutTally, faults: Fault[]): Promise<void> {
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
  const targets = targetsOf(cycle);
  await moreAcks(tally, 10);
  awaitedBelow(server('broker', targets.broker));
  awaitedBelow(server('cassandra', targets.cassandra));
  for (const [kind, service] of targets.services) {
    await moreAcks(tally, 10);
    const fault: Fault = { cycle, kind, target: service.name };
    faults.push(fault);
    awaitedBelow((await killService(fault, service)).back);
  }
  await Promise.all(comingBack);
  await moreAcks(tally, 10);
}

describe('the three-node cluster under faults', () => {
  it('When brokers, Cassandra nodes, converters, trip builders and gateways are killed -9 while fifty phones push real days, then every kill took effect and its target came back, every entry is stored exactly once, every slice has its calm trips, and every put answered 200 or an honest 503', async () => {
    expect(CYCLES, 'cycles enough to kill every broker, Cassandra node and service').toBeGreaterThanOrEqual(
      EVERY_TARGET_CYCLES,
    );
    await expectReplicatedProvisioning(rig.env, rig.admin);
    const calm = await pushCalmSlices(rig.gateways);
    log(`${calm.length} calm slices pushed`);

    const tally = newTally();
    const faults: Fault[] = [];
    const users: PushedUser[] = [];
    const cycleGaps: number[] = [];
    // The phones push throughout, each slice under a fresh user, so every cycle meets new data at every phase of a
    // day; gaps count from the moment all fifty have started until the cycle's last fault is over.
    const stopPhones = new AbortController();
    const phonesStarted = Date.now();
    const phones = Array.from({ length: PHONES }, (_, p) =>
      runPhone(rig.gateways, p, 'faults', stopPhones.signal, tally, paceOf(p)),
    );
    try {
      for (let cycle = 0; cycle < CYCLES; cycle += 1) {
        const started = Math.max(Date.now(), phonesStarted + PACE.pauseMs);
        const acksBefore = tally.acks.length;
        await injectFaults(cycle, tally, faults);
        const ended = Date.now();
        const underFaults = tally.acks.slice(acksBefore).filter((t) => t >= started && t <= ended);
        cycleGaps.push(longestGap(underFaults));
        log(
          `cycle ${cycle} done in ${((ended - started) / 1000).toFixed(0)} s: ${tally.acks.length - acksBefore} puts acknowledged, longest gap ${(cycleGaps.at(-1)! / 1000).toFixed(1)} s`,
        );
      }
    } finally {
      stopPhones.abort();
    }
    for (const pushed of await Promise.all(phones)) users.push(...pushed);

    const drainStarted = Date.now();
    await expectEveryEntryOnce(rig, [...calm, ...users], () => `converter output:\n${tailOf('converter-0.out')}`);
    log(`every entry stored ${((Date.now() - drainStarted) / 1000).toFixed(0)} s after the last put`);
    const tripsCompared = await expectTripsAsCalm(rig.gateways, calm, users);

    const entries = users.reduce((n, u) => n + Object.values(u.expected).reduce((a, b) => a + b, 0), 0);
    const byKind = faults.reduce<Record<string, number>>((m, f) => ({ ...m, [f.kind]: (m[f.kind] ?? 0) + 1 }), {});
    const restarts = faults.filter((f) => f.restartS !== undefined).map((f) => f.restartS!);
    process.stdout.write(
      [
        '',
        `cluster fault tally: ${CYCLES} cycle(s), ${PHONES} phones, ${faults.length} faults injected (${Object.entries(
          byKind,
        )
          .map(([k, n]) => `${k} ${n}`)
          .join(', ')})`,
        `  puts: ${[...tally.statuses.entries()].map(([s, n]) => `${s === 0 ? 'no answer' : s} x${n}`).join(', ')}; dishonest answers ${tally.dishonest.length}`,
        `  longest gap in acknowledged puts: ${(Math.max(...cycleGaps) / 1000).toFixed(1)} s (per cycle: ${cycleGaps.map((g) => (g / 1000).toFixed(1)).join(', ')} s)`,
        `  servers back after kill -9 (incl. ${DOWN_MS / 1000} s down): ${restarts.map((s) => s.toFixed(0)).join(', ')} s`,
        `  ${users.length} users, ${entries} entries stored exactly once (0 lost, 0 duplicated); ${tripsCompared} trips equal to the calm build`,
        `  processes the supervisor started (after exits nobody asked for): ${rig.itinera
          .all()
          .map((s) => `${s.name} ${s.starts} (${s.unexpectedExits})`)
          .join(', ')}`,
        '',
      ].join('\n'),
    );
    expect(tally.dishonest).toEqual([]);
    const everyTarget = [...brokers, ...cassandraNodes, ...rig.itinera.all()].map((t) => t.name);
    expect(
      everyTarget.filter((target) => !faults.some((f) => f.target === target)),
      'never killed',
    ).toEqual([]);
    expect(
      faults.flatMap((f) => evidenceGaps(f).map((gap) => `cycle ${f.cycle}, ${f.target}: ${gap}`)),
      'kills that did not take effect or whose target did not come back',
    ).toEqual([]);
  });
});

function tailOf(file: string): string {
  try {
    return readFileSync(join(rig.logDir, file), 'utf8').slice(-3000);
  } catch {
    return '(none)';
  }
}
