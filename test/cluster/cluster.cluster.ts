/**
 * The local three-node cluster under faults and under a rolling restart (`npm run test:cluster`). Two gateways, two
 * converters and two trip builders run as their own processes against three brokers (replication 3,
 * min.insync.replicas 2) and three Cassandra nodes (RF 3, LOCAL_QUORUM) while phones (25; 50 in the full run) push slices of real days,
 * each slice under a fresh user. Both tests share one setup (the cluster's keyspace and topics, the six processes, the
 * calm reference build of every slice), which takes minutes on two cores.
 *
 * - Faults (faults.ts): each cycle kill -9s a broker, a Cassandra node, a converter, a trip builder and a gateway.
 *   Every kill must have taken effect (the process ended, the port refused connections, a new process served again),
 *   every user's timeseries must hold exactly its slice's entries, none doubled, every slice's trips must equal the
 *   calm build, and every put must have answered 200 or an honest 503.
 * - Rolling restart (rolling-restart.ts): each broker and then each Cassandra node stopped cleanly and started again.
 *   No put may fail: every one answers 200 the first time, every entry is stored once, every slice's trips equal the
 *   calm build.
 *
 * ITINERA_CLUSTER_PHONES sets the phones (50), ITINERA_CLUSTER_PUT_ENTRIES and ITINERA_CLUSTER_PUT_PAUSE_MS their pace
 * (rig.ts); ITINERA_CLUSTER_CYCLES the fault cycles (faults.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  expectEveryEntryOnce,
  expectReplicatedProvisioning,
  expectTripsAsCalm,
  log,
  pushCalmSlices,
} from './checks.js';
import {
  brokers,
  cassandraNodes,
  CYCLES,
  DOWN_MS,
  evidenceGaps,
  EVERY_TARGET_CYCLES,
  injectFaults,
  type Fault,
} from './faults.js';
import { longestGap, newTally, runPhone, type PushedUser } from './phones.js';
import { PACE, paceOf, PHONES, useClusterRig } from './rig.js';
import { restartAt, restartInTurn, type Restart } from './rolling-restart.js';

const rig = useClusterRig('cluster');
/** Every slice pushed once before any fault: the reference both tests compare with. */
let calm: PushedUser[];

beforeAll(async () => {
  await expectReplicatedProvisioning(rig.env, rig.admin);
  calm = await pushCalmSlices(rig.gateways);
  log(`${calm.length} calm slices pushed`);
}, 600_000);

describe('the three-node cluster', () => {
  it('When brokers, Cassandra nodes, converters, trip builders and gateways are killed -9 while phones push real days, then every kill took effect and its target came back, every entry is stored exactly once, every slice has its calm trips, and every put answered 200 or an honest 503', async () => {
    expect(CYCLES, 'cycles enough to kill every broker, Cassandra node and service').toBeGreaterThanOrEqual(
      EVERY_TARGET_CYCLES,
    );
    const tally = newTally();
    const faults: Fault[] = [];
    const users: PushedUser[] = [];
    const cycleGaps: number[] = [];
    // The phones push throughout, each slice under a fresh user, so every cycle meets new data at every phase of a
    // day; gaps count from the moment all phones have started until the cycle's last fault is over.
    const stopPhones = new AbortController();
    const phonesStarted = Date.now();
    const phones = Array.from({ length: PHONES }, (_, p) =>
      runPhone(rig.gateways, p, 'faults', stopPhones.signal, tally, paceOf(p)),
    );
    try {
      for (let cycle = 0; cycle < CYCLES; cycle += 1) {
        const started = Math.max(Date.now(), phonesStarted + PACE.pauseMs);
        const acksBefore = tally.acks.length;
        await injectFaults(rig, cycle, tally, faults);
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

  it('When each broker and then each Cassandra node is restarted in turn while phones push, then no put fails and every entry and trip is there once', async () => {
    const tally = newTally();
    const stopPhones = new AbortController();
    const phones = Array.from({ length: PHONES }, (_, p) =>
      runPhone(rig.gateways, p, 'rr', stopPhones.signal, tally, paceOf(p)),
    );
    let restarts: Restart[] = [];
    const restarting = { from: Date.now(), to: Number.POSITIVE_INFINITY };
    try {
      restarts = await restartInTurn(rig);
    } finally {
      restarting.to = Date.now();
      stopPhones.abort();
    }
    const users: PushedUser[] = (await Promise.all(phones)).flat();
    await expectEveryEntryOnce(rig, [...calm, ...users]);
    const trips = await expectTripsAsCalm(rig.gateways, calm, users);
    // Only the acknowledgements while nodes restarted: the puts before the first restart and the ones that finish the
    // phones' slices after the last say nothing about a restart.
    const duringRestarts = tally.acks.filter((t) => t >= restarting.from && t <= restarting.to);
    const entries = users.reduce((n, u) => n + Object.values(u.expected).reduce((a, b) => a + b, 0), 0);
    process.stdout.write(
      [
        '',
        `rolling restart: ${restarts.map((r) => `${r.node} ${((r.to - r.from) / 1000).toFixed(0)} s`).join(', ')} (stop, start, back in sync)`,
        `  puts: ${[...tally.statuses.entries()].map(([s, n]) => `${s === 0 ? 'no answer' : s} x${n}`).join(', ')}; longest gap in acknowledged puts while the nodes restarted ${(longestGap(duringRestarts) / 1000).toFixed(1)} s`,
        `  ${users.length} users, ${entries} entries stored exactly once; ${trips} trips equal to the calm build`,
        '',
      ].join('\n'),
    );
    expect(
      tally.refusals.map((r) => `${r.status} during ${restartAt(restarts, r.at)}: ${r.said}`),
      'puts not acknowledged',
    ).toEqual([]);
    expect([...tally.statuses.keys()]).toEqual([200]);
  });
});

function tailOf(file: string): string {
  try {
    return readFileSync(join(rig.logDir, file), 'utf8').slice(-3000);
  } catch {
    return '(none)';
  }
}
