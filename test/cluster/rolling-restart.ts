/**
 * A rolling restart as an operator upgrades the cluster: the brokers in turn, each stopped cleanly (SIGTERM: it hands
 * its partition leaderships over first) and started again, then waited for until every replica is back in sync; and
 * the Cassandra nodes in turn beside them, each stopped cleanly (SIGTERM: it drains and tells the ring) and waited
 * for until the driver sees it again. One broker and one Cassandra node are away at a time: the two rolls overlap,
 * which asks more of the cluster than either alone and takes half the time of one after the other.
 */
import { clusterNodes, startNode, stopNode, type ClusterNode } from '../../deploy/local/cluster.js';
import { cassandraNodeBack, log, replicasInSync } from './checks.js';
import type { ClusterRig } from './rig.js';

/** Restarts every broker and every Cassandra node, a broker and a node at a time; answers each one's "<node> <s> s". */
export async function restartInTurn(rig: ClusterRig): Promise<string[]> {
  const brokers = clusterNodes.filter((n) => n.kind === 'kafka');
  const cassandraNodes = clusterNodes.filter((n) => n.kind === 'cassandra');
  const restarts: string[] = [];
  const restart = async (node: ClusterNode) => {
    const t0 = Date.now();
    await stopNode(rig.ctx, node);
    await startNode(rig.ctx, node);
    if (node.kind === 'kafka') await replicasInSync(rig.env, rig.admin);
    else await cassandraNodeBack(rig.env, node);
    restarts.push(`${node.name} ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    log(`restarted ${node.name} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  };
  for (let i = 0; i < Math.max(brokers.length, cassandraNodes.length); i += 1)
    await Promise.all([brokers[i], cassandraNodes[i]].filter((n) => n !== undefined).map(restart));
  return restarts;
}
