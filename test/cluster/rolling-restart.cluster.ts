/**
 * A rolling restart of the local three-node cluster under load (`npm run test:cluster`; issue 16 part 3), as an
 * operator upgrades it: each broker in turn stopped cleanly (SIGTERM: it hands its partition leaderships over first)
 * and started again, each waiting for every replica to be back in sync; then each Cassandra node in turn (SIGTERM:
 * it drains and tells the ring), each waiting for the driver to see it again. Fifty phones push slices of real days
 * throughout through two gateways. No put may fail: every one answers 200 the first time, every entry is stored once,
 * every slice's trips equal a calm build.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterContext, clusterNodes, startNode, stopNode, type ClusterContext } from '../../deploy/local/cluster.js';
import { findJava } from '../../deploy/local/server-process.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import {
  cassandraNodeBack,
  expectEveryEntryOnce,
  expectTripsAsCalm,
  log,
  pushCalmSlices,
  replicasInSync,
} from './checks.js';
import { Gateways, longestGap, newTally, runPhone, type PushedUser } from './phones.js';
import { startItinera, type Itinera } from './services.js';

const PHONES = Number(process.env['ITINERA_CLUSTER_PHONES'] ?? 50);
const PACE = {
  chunk: Number(process.env['ITINERA_CLUSTER_PUT_ENTRIES'] ?? 50),
  pauseMs: Number(process.env['ITINERA_CLUSTER_PUT_PAUSE_MS'] ?? 10_000),
};

let ctx: ClusterContext;
let env: TestEnv;
let admin: Admin;
let itinera: Itinera;
let gateways: Gateways;

beforeAll(async () => {
  ctx = clusterContext(findJava(), true);
  env = await createTestEnv({ CASSANDRA_REPLICATION_FACTOR: '3', ITINERA_PARTITIONS: '6' });
  admin = env.kafka.admin();
  await admin.connect();
  itinera = await startItinera(env, mkdtempSync(join(tmpdir(), 'itinera-rolling-')));
  gateways = new Gateways(itinera.urls);
}, 600_000);

afterAll(async () => {
  await itinera?.stop();
  await admin?.disconnect();
  await env?.dispose();
});

describe('a rolling restart of the three-node cluster', () => {
  it('When each broker and then each Cassandra node is restarted in turn while fifty phones push, then no put fails and every entry and trip is there once', async () => {
    const calm = await pushCalmSlices(gateways);
    const tally = newTally();
    let pushing = true;
    const phones = Array.from({ length: PHONES }, (_, p) =>
      runPhone(gateways, p, 'rr', () => pushing, tally, { ...PACE, startAfterMs: (p / PHONES) * PACE.pauseMs }),
    );
    const restarts: string[] = [];
    try {
      for (const node of clusterNodes.filter((n) => n.kind === 'kafka' || n.kind === 'cassandra')) {
        const t0 = Date.now();
        await stopNode(ctx, node);
        await startNode(ctx, node);
        if (node.kind === 'kafka') await replicasInSync(env, admin);
        else await cassandraNodeBack(env, node);
        restarts.push(`${node.name} ${((Date.now() - t0) / 1000).toFixed(0)} s`);
        log(`restarted ${node.name} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      }
    } finally {
      pushing = false;
    }
    const users: PushedUser[] = (await Promise.all(phones)).flat();
    await expectEveryEntryOnce(env, [...calm, ...users], () => '');
    const trips = await expectTripsAsCalm(gateways, calm, users);
    const entries = users.reduce((n, u) => n + Object.values(u.expected).reduce((a, b) => a + b, 0), 0);
    process.stdout.write(
      [
        '',
        `rolling restart: ${restarts.join(', ')} (stop, start, back in sync)`,
        `  puts: ${[...tally.statuses.entries()].map(([s, n]) => `${s === 0 ? 'no answer' : s} x${n}`).join(', ')}; longest gap in acknowledged puts ${(longestGap(tally.acks) / 1000).toFixed(1)} s`,
        `  ${users.length} users, ${entries} entries stored exactly once; ${trips} trips equal to the calm build`,
        '',
      ].join('\n'),
    );
    expect([...tally.statuses.keys()]).toEqual([200]);
  });
});
