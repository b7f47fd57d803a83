/**
 * A rolling restart as an operator upgrades the cluster: each broker in turn stopped cleanly (SIGTERM: it hands its
 * partition leaderships over first) and started again, each waiting for every replica to be back in sync; then each
 * Cassandra node in turn (SIGTERM: it drains and tells the ring), each waiting for the driver to see it again.
 */
import { clusterNodes, startNode, stopNode } from '../../deploy/local/cluster.js';
import { cassandraNodeBack, log, replicasInSync } from './checks.js';
import type { ClusterRig } from './rig.js';

/** One node's restart: from the stop to the moment it was back in sync, ms since the epoch. */
export interface Restart {
  node: string;
  from: number;
  to: number;
}

/** The restart under way at `at`, by name, or "between restarts". */
export function restartAt(restarts: readonly Restart[], at: number): string {
  return restarts.find((r) => at >= r.from && at <= r.to)?.node ?? 'between restarts';
}

/** Restarts every broker, then every Cassandra node, one at a time. */
export async function restartInTurn(rig: ClusterRig): Promise<Restart[]> {
  const restarts: Restart[] = [];
  for (const node of clusterNodes.filter((n) => n.kind === 'kafka' || n.kind === 'cassandra')) {
    const t0 = Date.now();
    await stopNode(rig.ctx, node);
    await startNode(rig.ctx, node);
    if (node.kind === 'kafka') await replicasInSync(rig.env, rig.admin);
    else await cassandraNodeBack(rig.env, node);
    restarts.push({ node: node.name, from: t0, to: Date.now() });
    log(`restarted ${node.name} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  return restarts;
}
