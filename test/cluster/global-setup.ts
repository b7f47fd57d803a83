import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { clusterContext, clusterEnv, clusterNodes, nodePid } from '../../deploy/local/cluster.js';
import type {} from '../helpers/global-setup.js';
import { compiled } from './compiled.js';

const repoRoot = resolve(import.meta.dirname, '..', '..');

/**
 * Brings the local three-node cluster up (`stack.ts up --nodes 3`), or reuses it when it runs, and hands its
 * addresses to createTestEnv. A cluster this setup started is brought down afterwards (it takes the machine's two
 * cores), unless ITINERA_CLUSTER_KEEP=1; one that was already running is left as it was.
 */
export default function setup(project: TestProject): () => Promise<void> {
  if (!existsSync(compiled('services/gateway/main.ts')))
    throw new Error(
      'the cluster suite runs the compiled services: `npm run build` first (`npm run test:cluster` does)',
    );
  const ctx = clusterContext('java', true);
  const wasRunning = clusterNodes.every((n) => nodePid(ctx, n) !== undefined);
  const stack = (...command: string[]) =>
    spawnSync('npx', ['tsx', join(repoRoot, 'deploy/local/stack.ts'), ...command, '--nodes', '3'], {
      stdio: 'inherit',
      cwd: repoRoot,
    });
  // The suite provisions a keyspace and topics of its own (test/cluster/rig.ts): the servers are all it needs.
  if (stack('up', '--no-provision').status !== 0)
    throw new Error('the local cluster did not come up; see the lines above');
  const env = clusterEnv();
  project.provide('servers', {
    kafkaBrokers: env['KAFKA_BROKERS']!,
    cassandraContactPoints: env['CASSANDRA_CONTACT_POINTS']!,
    schemaRegistryUrl: env['SCHEMA_REGISTRY_URL']!,
  });
  return async () => {
    if (!wasRunning && process.env['ITINERA_CLUSTER_KEEP'] !== '1') stack('down');
  };
}
