/**
 * The Dockerfile and the compose files, checked without a Docker engine: parsed, and held to the topology, versions,
 * ordering and memory the README promises.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { APICURIO_VERSION, CASSANDRA_VERSION, KAFKA_VERSION } from './local/servers.js';

type Compose = Record<string, any>;
const root = join(import.meta.dirname, '..');
const GiB = 1024 ** 3;
const bytes = (quantity: string): number => {
  const m = /^(\d+(?:\.\d+)?)([kmg]?)$/i.exec(String(quantity));
  if (!m) throw new Error(`not a compose memory size: ${quantity}`);
  return Number(m[1]) * ({ '': 1, k: 1024, m: 1024 ** 2, g: GiB } as Record<string, number>)[m[2]!.toLowerCase()]!;
};

/** The sum of every container's memory limit; each container must have one. */
function totalMemoryLimit(services: Record<string, Compose>): number {
  return Object.entries(services).reduce((sum, [name, s]) => {
    const limit = s['deploy']?.['resources']?.['limits']?.['memory'];
    expect(limit, name).toBeDefined();
    return sum + bytes(limit);
  }, 0);
}

describe('docker-compose.cluster.yml and the Dockerfile', () => {
  const compose = parse(readFileSync(join(root, 'docker-compose.cluster.yml'), 'utf8'), { merge: true }) as Compose;
  const services = compose['services'] as Record<string, Compose>;

  it('When the cluster is composed, then three KRaft voters replicate three times with min ISR 2, three Cassandra nodes share dc1, at the tested versions', () => {
    const brokers = Object.entries(services).filter(([name]) => /^kafka-\d$/.test(name));
    expect(brokers).toHaveLength(3);
    for (const [name, s] of brokers) {
      expect(s['image']).toBe(`apache/kafka:${KAFKA_VERSION}`);
      const e = s['environment'];
      expect(e['KAFKA_CONTROLLER_QUORUM_VOTERS'].split(',')).toHaveLength(3);
      expect(e['KAFKA_CONTROLLER_QUORUM_VOTERS']).toContain(`${e['KAFKA_NODE_ID']}@${name}:9093`);
      expect(e).toMatchObject({ KAFKA_DEFAULT_REPLICATION_FACTOR: 3, KAFKA_MIN_INSYNC_REPLICAS: 2 });
    }
    const nodes = Object.entries(services).filter(([name]) => /^cassandra-\d$/.test(name));
    expect(nodes).toHaveLength(3);
    for (const [, s] of nodes) {
      expect(s['image']).toBe(`cassandra:${CASSANDRA_VERSION}`);
      expect(s['environment']['CASSANDRA_DC']).toBe(services['gateway']!['environment']['CASSANDRA_LOCAL_DC']);
    }
    expect(services['cassandra-keyspace']!['command'].at(-1)).toContain("'NetworkTopologyStrategy', 'dc1': 3");
    expect(services['registry']!['image']).toBe(`apicurio/apicurio-registry:${APICURIO_VERSION}`);
  });

  it('When every container runs at its memory limit, then the cluster still fits a 24 GiB machine with 4 GiB to spare', () => {
    expect(totalMemoryLimit(services)).toBeLessThanOrEqual(20 * GiB);
  });

  it('When the image is built, then it installs production dependencies only, ships what the code reads at run time, and runs as a user', () => {
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    for (const path of ['conf', 'schemas', 'services/console/web', 'bin'])
      expect(dockerfile).toContain(`COPY --chown=root:root ${path} ${path}`);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n.*\/health/m);
    expect(dockerfile).toMatch(/^CMD \["node", "dist\/services\/gateway\/main.js"\]$/m);
  });
});

describe('docker-compose.yml, the whole system on one host', () => {
  const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as Compose;
  const services = compose['services'] as Record<string, Compose>;

  it('When `docker compose up` runs, then the servers, provisioning and the three services start, each service after provisioning succeeded, against the servers by their compose names', () => {
    expect(Object.keys(services)).toEqual(
      expect.arrayContaining([
        'kafka',
        'cassandra',
        'schema-registry',
        'provision',
        'gateway',
        'converter',
        'trip-builder',
      ]),
    );
    expect(services['kafka']!['image']).toBe(`apache/kafka:${KAFKA_VERSION}`);
    expect(services['cassandra']!['image']).toBe(`cassandra:${CASSANDRA_VERSION}`);
    expect(services['schema-registry']!['image']).toBe(`apicurio/apicurio-registry:${APICURIO_VERSION}`);
    const advertised = String(services['kafka']!['environment']['KAFKA_ADVERTISED_LISTENERS']);
    for (const name of ['gateway', 'converter', 'trip-builder']) {
      const s = services[name]!;
      expect(s['depends_on']['provision']).toEqual({ condition: 'service_completed_successfully' });
      expect(advertised).toContain(`PLAINTEXT://${s['environment']['KAFKA_BROKERS']}`);
      expect(s['environment']['CASSANDRA_CONTACT_POINTS']).toBe('cassandra:9042');
      expect(s['environment']['SCHEMA_REGISTRY_URL']).toMatch(/^http:\/\/schema-registry:8080\//);
      // Containers log to standard output: no log file fills the container's disk.
      expect(s['environment']).toMatchObject({ ITINERA_LOG_DIR: '-', ITINERA_INTAKE_LOG_DIR: '-' });
    }
    expect(services['gateway']!['ports']).toEqual(['127.0.0.1:8080:8080']);
  });

  it('When every container runs at its memory limit, then the system fits a 16 GiB machine', () => {
    expect(totalMemoryLimit(services)).toBeLessThanOrEqual(12 * GiB);
  });
});
