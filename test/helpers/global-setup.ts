import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import type { ServerAddresses } from './server-addresses.js';

export type { ServerAddresses } from './server-addresses.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

declare module 'vitest' {
  export interface ProvidedContext {
    servers: ServerAddresses;
  }
}

/** Servers named by the environment win; else testcontainers if a Docker engine answers; else the local stack. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const env = process.env;
  if (env['KAFKA_BROKERS'] && env['CASSANDRA_CONTACT_POINTS'] && env['SCHEMA_REGISTRY_URL']) {
    project.provide('servers', {
      kafkaBrokers: env['KAFKA_BROKERS'],
      cassandraContactPoints: env['CASSANDRA_CONTACT_POINTS'],
      schemaRegistryUrl: env['SCHEMA_REGISTRY_URL'],
    });
    return async () => undefined;
  }
  if (await dockerAnswers()) {
    const { startContainers } = await import('./containers.js');
    const { addresses, stop } = await startContainers();
    project.provide('servers', addresses);
    return stop;
  }
  // The local stack stays up after the run (a warm re-run takes seconds); `npm run stop` or .ci/run stops it.
  const result = spawnSync('npx', ['tsx', join(repoRoot, 'deploy/local/stack.ts'), 'up'], {
    stdio: 'inherit',
    cwd: repoRoot,
  });
  if (result.status !== 0) throw new Error('the local stack did not come up; see the lines above');
  project.provide('servers', {
    kafkaBrokers: '127.0.0.1:9092',
    cassandraContactPoints: '127.0.0.1:9042',
    schemaRegistryUrl: 'http://127.0.0.1:8081/apis/ccompat/v7',
    saslBrokers: '127.0.0.1:9094',
    cassandraDemandsLogin: true,
  });
  return async () => undefined;
}

async function dockerAnswers(): Promise<boolean> {
  if (process.env['ITINERA_TEST_NO_DOCKER'] === '1') return false;
  const out = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { encoding: 'utf8', timeout: 5000 });
  return out.status === 0 && out.stdout.trim().length > 0;
}
