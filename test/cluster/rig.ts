/**
 * What each cluster suite runs on: the cluster's context, a test environment of its own (RF 3, six partitions so two
 * workers share them), an admin client, Itinera's six supervised processes and the phones' view of the gateways;
 * and the phones' pace. `useClusterRig` registers the hooks that start and stop them around the file's tests.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Admin } from 'kafkajs';
import { afterAll, beforeAll } from 'vitest';
import { clusterContext, type ClusterContext } from '../../deploy/local/cluster.js';
import { findJava } from '../../deploy/local/server-process.js';
import { createTestEnv, type TestEnv } from '../helpers/test-env.js';
import { Gateways } from './phones.js';
import { startItinera, type Itinera } from './services.js';

/**
 * Phones pushing at once: 25 by default (`npm run test:cluster`, CI), 50 in `npm run test:cluster:full`. The cores
 * are the limit: with fifty phones the machine had no idle time at all during the suite, and a broker that starts in
 * 9 s on a quiet machine took 60-80 s to start beside the load, a Cassandra node 95-140 s.
 */
export const PHONES = Number(process.env['ITINERA_CLUSTER_PHONES'] ?? 25);
/**
 * Entries per put and the pause between a phone's puts: at most 83 entries/s from fifty phones (42 from 25). At
 * 250 entries/s the three Cassandra nodes alone (quorum reads of the trip builders above all, and a restarted node's JIT) took both
 * cores, and a killed node needed 2-4 minutes to start beside them instead of half a minute; at 125 entries/s CI's
 * machine still took 150-235 s to bring a killed node back, and the suite 47 of CI's 90 minutes.
 */
export const PACE = {
  chunk: Number(process.env['ITINERA_CLUSTER_PUT_ENTRIES'] ?? 50),
  pauseMs: Number(process.env['ITINERA_CLUSTER_PUT_PAUSE_MS'] ?? 30_000),
};

/**
 * Phone `p`'s pace, its first put delayed by its share of the pause: every phone's put in one wave every pause would make
 * every gap between acknowledgements a pause long, hiding the gaps a fault makes.
 */
export const paceOf = (p: number) => ({ ...PACE, startAfterMs: (p / PHONES) * PACE.pauseMs });

export interface ClusterRig {
  ctx: ClusterContext;
  env: TestEnv;
  admin: Admin;
  itinera: Itinera;
  gateways: Gateways;
  logDir: string;
}

export function useClusterRig(name: string): ClusterRig {
  const rig = { logDir: mkdtempSync(join(tmpdir(), `itinera-${name}-`)) } as ClusterRig;
  beforeAll(async () => {
    rig.ctx = clusterContext(findJava(), true);
    rig.env = await createTestEnv({ CASSANDRA_REPLICATION_FACTOR: '3', ITINERA_PARTITIONS: '6' });
    rig.admin = rig.env.kafka.admin();
    await rig.admin.connect();
    rig.itinera = await startItinera(rig.env, rig.logDir);
    rig.gateways = new Gateways(rig.itinera.urls);
  }, 600_000);
  afterAll(async () => {
    await rig.itinera?.stop();
    await rig.admin?.disconnect();
    await rig.env?.dispose();
  });
  return rig;
}
