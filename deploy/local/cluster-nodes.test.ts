import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../shared/config/repo-root.js';
import { CLUSTER_HEAPS, clusterConfig, clusterEnv, clusterNodes } from './cluster-nodes.js';

const heapMb = (flags: string) => Number(/-Xmx(\d+)m/.exec(flags)?.[1]);

describe('the local three-node cluster', () => {
  it('When a service is pointed at the cluster, then it gets all three brokers and contact points and replication 3', () => {
    const config = clusterConfig({ KAFKA_BROKERS: '127.0.0.1:9092' });
    expect(config.kafka.brokers).toEqual(['127.0.0.2:9092', '127.0.0.3:9092', '127.0.0.4:9092']);
    expect(config.cassandra.contactPoints).toEqual(['127.0.0.2:9042', '127.0.0.3:9042', '127.0.0.4:9042']);
    expect(config.cassandra.replicationFactor).toBe(3);
    expect(config.schemaRegistry.url).toBe('http://127.0.0.2:8081/apis/ccompat/v7');
    expect(clusterEnv()['CASSANDRA_REPLICATION_FACTOR']).toBe('3');
  });

  it('When the cluster runs beside the single-node stack, then none of its nodes listens on 127.0.0.1', () => {
    expect(clusterNodes).toHaveLength(7);
    for (const node of clusterNodes) expect(node.host).not.toBe('127.0.0.1');
  });

  it('When the heaps are added up, then the cluster stays under 4 GB of heap', () => {
    const total =
      3 * heapMb(CLUSTER_HEAPS.kafka) + 3 * heapMb(CLUSTER_HEAPS.cassandra) + heapMb(CLUSTER_HEAPS.registry);
    expect(total).toBeLessThanOrEqual(4096);
  });

  it('When the brokers are configured, then topics default to three replicas of which two must be in sync', () => {
    const properties = readFileSync(join(repoRoot, 'deploy/local/kafka/server-cluster.properties'), 'utf8');
    expect(properties).toMatch(/^default\.replication\.factor=3$/m);
    expect(properties).toMatch(/^min\.insync\.replicas=2$/m);
    expect(properties).toMatch(/^offsets\.topic\.replication\.factor=3$/m);
    expect(properties).toMatch(/^unclean\.leader\.election\.enable=false$/m);
  });
});
