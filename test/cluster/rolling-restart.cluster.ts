/**
 * A rolling restart of the local three-node cluster under load (`npm run test:cluster`), as an operator upgrades it:
 * each broker in turn stopped cleanly (SIGTERM: it hands its partition leaderships over first) and started again,
 * each waiting for every replica to be back in sync; then each Cassandra node in turn (SIGTERM: it drains and tells
 * the ring), each waiting for the driver to see it again. Fifty phones push slices of real days throughout through two
 * gateways. No put may fail: every one answers 200 the first time, every entry is stored once, every slice's trips
 * equal a calm build.
 */
import { describe, expect, it } from 'vitest';
import { clusterNodes, startNode, stopNode } from '../../deploy/local/cluster.js';
import {
  cassandraNodeBack,
  expectEveryEntryOnce,
  expectTripsAsCalm,
  log,
  pushCalmSlices,
  replicasInSync,
} from './checks.js';
import { longestGap, newTally, runPhone, type PushedUser } from './phones.js';
import { paceOf, PHONES, useClusterRig } from './rig.js';

const rig = useClusterRig('rolling');

describe('a rolling restart of the three-node cluster', () => {
  it('When each broker and then each Cassandra node is restarted in turn while fifty phones push, then no put fails and every entry and trip is there once', async () => {
    const calm = await pushCalmSlices(rig.gateways);
    const tally = newTally();
    const stopPhones = new AbortController();
    const phones = Array.from({ length: PHONES }, (_, p) =>
      runPhone(rig.gateways, p, 'rr', stopPhones.signal, tally, paceOf(p)),
    );
    const restarts: string[] = [];
    const restarting = { from: Date.now(), to: Number.POSITIVE_INFINITY };
    try {
      for (const node of clusterNodes.filter((n) => n.kind === 'kafka' || n.kind === 'cassandra')) {
        const t0 = Date.now();
        await stopNode(rig.ctx, node);
        await startNode(rig.ctx, node);
        if (node.kind === 'kafka') await replicasInSync(rig.env, rig.admin);
        else await cassandraNodeBack(rig.env, node);
        restarts.push(`${node.name} ${((Date.now() - t0) / 1000).toFixed(0)} s`);
        log(`restarted ${node.name} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      }
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
        `rolling restart: ${restarts.join(', ')} (stop, start, back in sync)`,
        `  puts: ${[...tally.statuses.entries()].map(([s, n]) => `${s === 0 ? 'no answer' : s} x${n}`).join(', ')}; longest gap in acknowledged puts while the nodes restarted ${(longestGap(duringRestarts) / 1000).toFixed(1)} s`,
        `  ${users.length} users, ${entries} entries stored exactly once; ${trips} trips equal to the calm build`,
        '',
      ].join('\n'),
    );
    expect([...tally.statuses.keys()]).toEqual([200]);
  });
});
