import { randomUUID } from 'node:crypto';
import { inject, onTestFinished } from 'vitest';
import { loadConfig, type Config } from '../../shared/config/index.js';
import { createCassandraClient, createCql, type CassandraClient, type Cql } from '../../shared/cassandra/index.js';
import { createKafka } from '../../shared/kafka/index.js';
import { createLogger, type Logger } from '../../shared/logger/index.js';
import { createAvroCodec, createSchemaRegistry, type AvroCodec } from '../../shared/schema-registry/index.js';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { migrationVersions } from '../../deploy/provision/migrate.js';
import { provision } from '../../deploy/provision/provision.js';
import { repoRoot } from '../../shared/config/repo-root.js';
import type { Kafka } from 'kafkajs';
import { claimKeyspace, releaseKeyspace } from './keyspace-pool.js';

export interface TestEnv {
  config: Config;
  kafka: Kafka;
  cassandra: CassandraClient;
  cql: Cql;
  codec: AvroCodec;
  logger: Logger;
  /** Drops the keyspace and the topics this environment created. */
  dispose(): Promise<void>;
}

/**
 * A private slice of the real servers: its own topic prefix, consumer-group prefix and keyspace, provisioned
 * exactly as production is. Tests never see each other's data. The keyspace is an emptied one that an earlier file
 * left (keyspace-pool.ts) unless the overrides name other Cassandra settings; it is then made afresh and dropped.
 */
export async function createTestEnv(overrides: Record<string, string> = {}): Promise<TestEnv> {
  const servers = inject('servers');
  const id = randomUUID().replace(/-/g, '').slice(0, 12);
  const pooled = !Object.keys(overrides).some((key) => key.startsWith('CASSANDRA_'));
  let config = loadConfig({
    env: {
      ...process.env,
      KAFKA_BROKERS: servers.kafkaBrokers,
      CASSANDRA_CONTACT_POINTS: servers.cassandraContactPoints,
      SCHEMA_REGISTRY_URL: servers.schemaRegistryUrl,
      ITINERA_TOPIC_PREFIX: `t${id}.`,
      CASSANDRA_KEYSPACE: `t${id}`,
      ITINERA_PARTITIONS: '4',
      ...overrides,
    },
  });
  if (pooled) {
    const keyspace = await withoutKeyspace(config, (client) =>
      claimKeyspace(client, config.cassandra.contactPoints, SHIPPED_MIGRATIONS),
    );
    if (keyspace !== undefined) config = { ...config, cassandra: { ...config.cassandra, keyspace } };
  }
  await provision(config);
  // Quiet by default: kafkajs reports expected retries (coordinator loading, a dead broker in the 503 test) as
  // errors. TEST_LOG_LEVEL=debug shows everything.
  const logger = createLogger({ component: 'test', level: process.env['TEST_LOG_LEVEL'] ?? 'error' });
  logger.silent = process.env['TEST_LOG_LEVEL'] === undefined;
  const kafka = createKafka({ ...config.kafka, clientId: `test-${id}`, logger });
  const cassandra = createCassandraClient({
    contactPoints: config.cassandra.contactPoints,
    localDataCenter: config.cassandra.localDataCenter,
    keyspace: config.cassandra.keyspace,
    credentials: config.cassandra.credentials,
  });
  await cassandra.connect();
  const codec = createAvroCodec(createSchemaRegistry(config.schemaRegistry));
  return {
    config,
    kafka,
    cassandra,
    cql: createCql(cassandra),
    codec,
    logger,
    async dispose() {
      const keyspace = config.cassandra.keyspace;
      if (pooled) await releaseKeyspace(cassandra, config.cassandra.contactPoints, keyspace).catch(() => undefined);
      else await cassandra.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`).catch(() => undefined);
      await cassandra.shutdown();
      const admin = kafka.admin();
      await admin.connect();
      const mine = (await admin.listTopics()).filter((t) => t.startsWith(config.kafka.topicPrefix));
      await admin.deleteTopics({ topics: mine }).catch(() => undefined);
      await admin.disconnect();
    },
  };
}

const SHIPPED_MIGRATIONS = migrationVersions(readdirSync(join(repoRoot, 'schemas', 'cql')));

/** Runs `work` with a client of the test's Cassandra bound to no keyspace. */
async function withoutKeyspace<T>(config: Config, work: (client: CassandraClient) => Promise<T>): Promise<T> {
  const client = createCassandraClient({
    contactPoints: config.cassandra.contactPoints,
    localDataCenter: config.cassandra.localDataCenter,
    credentials: config.cassandra.credentials,
  });
  try {
    return await work(client);
  } finally {
    await client.shutdown();
  }
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 30_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

/** Registers a cleanup at creation time, so a failing test still releases what it made. */
export function cleanupAfterTest(fn: () => Promise<unknown>): void {
  onTestFinished(async () => {
    await fn();
  });
}

/** The environment a service process or the CLI needs to run against this test's servers, topics and keyspace. */
export function serviceEnv(env: TestEnv, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    KAFKA_BROKERS: env.config.kafka.brokers.join(','),
    CASSANDRA_CONTACT_POINTS: env.config.cassandra.contactPoints.join(','),
    CASSANDRA_KEYSPACE: env.config.cassandra.keyspace,
    SCHEMA_REGISTRY_URL: env.config.schemaRegistry.url,
    ITINERA_TOPIC_PREFIX: env.config.kafka.topicPrefix,
    ...extra,
  };
}
