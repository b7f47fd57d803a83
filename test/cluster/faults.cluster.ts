/**
 * Faults on the local three-node cluster (`npm run test:cluster`; issue 16 part 2). Two gateways, two converters and
 * two trip builders run as their own processes against three brokers (replication 3, min.insync.replicas 2) and three
 * Cassandra nodes (RF 3, LOCAL_QUORUM) while fifty phones push slices of real days, each slice under a fresh user.
 * Each cycle kill -9s one broker and one Cassandra node together (and starts each again) and, while they are away, a
 * converter, a trip builder and a gateway (their supervisor starts them again; a phone whose connection dropped sends
 * its put to the other gateway). Then every user's timeseries must hold exactly its slice's entries, none doubled,
 * every slice's trips must equal a calm build of the same slice, and every put must have answered 200 or an honest
 * 503.
 *
 * ITINERA_CLUSTER_CYCLES (default 10) sets the number of cycles, five faults each; ITINERA_CLUSTER_PHONES the phones
 * (50); ITINERA_CLUSTER_PUT_ENTRIES and ITINERA_CLUSTER_PUT_PAUSE_MS their pace (test/cluster/rig.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clusterNode, killNode, startNode, type ClusterNode } from '../../deploy/local/cluster.js';
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
import type { Supervised } from './services.js';

const CYCLES = Number(process.env['ITINERA_CLUSTER_CYCLES'] ?? 10);
/** How long a killed broker or Cassandra node stays down: past the brokers' 6 s session timeout. */
const DOWN_MS = 12_000;

const rig = useClusterRig('cluster');

interface Fault {
  kind: 'broker' | 'cassandra' | 'converter' | 'trip builder' | 'gateway';
  target: string;
  /** Seconds from the kill until the node answered again (servers only). */
  restartS?: number;
}

/** Waits until `n` more puts are acknowledged, so each fault falls in the middle of the stream. */
async function moreAcks(tally: PutTally, n: number): Promise<void> {
  const target = tally.acks.length + n;
  await waitFor(async () => (tally.acks.length >= target ? true : undefined), 300_000, `${n} more acknowledged puts`);
}

/**
 * One cycle: a broker and a Cassandra node are killed together (one of three of each, which replication survives) and
 * started again after DOWN_MS; while they are away, a converter, a trip builder and a gateway are killed in turn
 * (their supervisor starts them again). A cycle lasts as long as the slower server takes to come back, not the sum of
 * five restarts: on two cores a JVM starting beside five others and the load takes minutes.
 */
async function injectFaults(cycle: number, tally: PutTally, faults: Fault[]): Promise<void> {
  const server = async (kind: 'broker' | 'cassandra', node: ClusterNode) => {
    const at = Date.now();
    await killNode(rig.ctx, node);
    log(`cycle ${cycle}: kill -9 ${node.name}`);
    await new Promise((r) => setTimeout(r, DOWN_MS));
    await startNode(rig.ctx, node);
    const fault: Fault = { kind, target: node.name, restartS: (Date.now() - at) / 1000 };
    faults.push(fault);
    log(`cycle ${cycle}: ${node.name} back after ${fault.restartS?.toFixed(1)} s`);
    if (kind === 'broker') await replicasInSync(rig.env, rig.admin);
    else await cassandraNodeBack(rig.env, node);
  };
  await moreAcks(tally, 10);
  const serversBack = Promise.all([
    server('broker', clusterNode('kafka', (cycle % 3) + 1)),
    server('cassandra', clusterNode('cassandra', ((cycle + 1) % 3) + 1)),
  ]);
  // Awaited below; until then a failure must not count as unhandled.
  serversBack.catch(() => undefined);
  const instance = (list: Supervised[]) => list[cycle % list.length]!;
  for (const [kind, service] of [
    ['converter', instance(rig.itinera.converters)],
    ['trip builder', instance(rig.itinera.tripBuilders)],
    ['gateway', instance(rig.itinera.gateways)],
  ] as const) {
    await moreAcks(tally, 10);
    faults.push({ kind, target: service.name });
    await service.kill9();
    log(`cycle ${cycle}: kill -9 ${service.name}`);
  }
  await serversBack;
  await moreAcks(tally, 10);
}

describe('the three-node cluster under faults', () => {
  it('When brokers, Cassandra nodes, converters, trip builders and gateways are killed -9 while fifty phones push real days, then every entry is stored exactly once, every slice has its calm trips, and every put answered 200 or an honest 503', async () => {
    await expectReplicatedProvisioning(rig.env, rig.admin);
    const calm = await pushCalmSlices(rig.gateways);
    log(`${calm.length} calm slices pushed`);

    const tally = newTally();
    const faults: Fault[] = [];
    const users: PushedUser[] = [];
    const cycleGaps: number[] = [];
    // The phones push throughout, each slice under a fresh user, so every cycle meets new data at every phase of a
    // day; gaps count from the moment all fifty have started until the cycle's last fault is over.
    let pushing = true;
    const phonesStarted = Date.now();
    const phones = Array.from({ length: PHONES }, (_, p) =>
      runPhone(rig.gateways, p, 'faults', () => pushing, tally, paceOf(p)),
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
      pushing = false;
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
        `  unexpected service exits (restarted by the supervisor): ${rig.itinera
          .all()
          .map((s) => `${s.name} ${s.unexpectedExits}`)
          .join(', ')}`,
        '',
      ].join('\n'),
    );
    expect(tally.dishonest).toEqual([]);
    expect(faults.length).toBe(5 * CYCLES);
  });
});

function tailOf(file: string): string {
  try {
    return readFileSync(join(rig.logDir, file), 'utf8').slice(-3000);
  } catch {
    return '(none)';
  }
}
