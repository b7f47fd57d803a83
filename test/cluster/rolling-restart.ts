/**
 * A rolling restart as an operator upgrades the cluster: each broker in turn stopped cleanly (SIGTERM: it hands its
 * partition leaderships over first) and started again, each waiting for every replica to be back in sync; then each
 * Cassandra node in turn (SIGTERM: it drains and tells the ring), each waiting for the driver to see it again.
 */
import { clusterNodes, startNode, stopNode } from '../../deploy/local/cluster.js';
import { cassandraNodeBack, log, replicasInSync } from './checks.js';
import type { ClusterRig } from './rig.js';

/** Restarts every broker, then every Cassandra node, one at a time; answers each one's time, "<node> <s> s". */
export async function restartInTurn(rig: ClusterRig): Promise<string[]> {
  const restarts: string[] = [];
  for (const node of clusterNodes.filter((n) => n.kind === 'kafka' || n.kind === 'cassandra')) {
    const t0 = Date.now();
    await stopNode(rig.ctx, node);
    await startNode(rig.ctx, node);
    if (node.kind === 'kafka') await replicasInSync(rig.env, rig.admin);
    else await cassandraNodeBack(rig.env, node);
    restarts.push(`${node.name} ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    log(`restarted ${node.name} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  return restarts;
}
