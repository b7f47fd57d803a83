import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../shared/config/index.js';
import { repoRoot } from '../../shared/config/repo-root.js';
import { createCassandraClient, createCql } from '../../shared/cassandra/index.js';
import { topicName, type TopicId } from '../../shared/events/index.js';
import { createKafka } from '../../shared/kafka/index.js';
import { createLogger } from '../../shared/logger/index.js';
import { createSchemaRegistry, registerAvro, valueSubject } from '../../shared/schema-registry/index.js';
import { ensureTopics } from './topics.js';
import { dataMigrations } from './data-migrations.js';
import { keyspaceReplication, migrate } from './migrate.js';

const schemasDir = join(repoRoot, 'schemas');

/** Which Avro schema (schemas/avro) describes the values of which topic. */
export const topicSchemas: Record<TopicId, string> = {
  usercache: 'usercache-entry.avsc',
  timeseries: 'timeseries-entry.avsc',
  errorTimeseries: 'dead-letter.avsc',
  diary: 'diary-document.avsc',
};

/** How long a schema change may take to reach every node before provisioning goes on regardless. */
const SCHEMA_AGREEMENT_WAIT_S = 90;

export interface ProvisionReport {
  topics: number;
  schemaVersion: number;
  subjects: number;
}

/** Runs the data migration of `version`, if it has one, on a client of the keyspace. */
async function moveData(config: Config, version: number): Promise<void> {
  const move = dataMigrations.get(version);
  if (!move) return;
  const client = createCassandraClient({ ...config.cassandra });
  try {
    await move(createCql(client));
  } finally {
    await client.shutdown();
  }
}

/**
 * Makes the servers ready for Itinera: topics, keyspace and tables, Avro subjects. Idempotent: run it on every
 * start. Tests call it with their own topic prefix and keyspace.
 */
export async function provision(config: Config): Promise<ProvisionReport> {
  const logger = createLogger({ component: 'provision', level: 'warn' });
  const admin = createKafka({ ...config.kafka, clientId: 'itinera-provision', logger }).admin();
  await admin.connect();
  let topics: number;
  try {
    topics = await ensureTopics(admin, config.kafka.topicPrefix, config.kafka.partitions, logger, config.retention);
  } finally {
    await admin.disconnect();
  }

  // After each DDL statement the driver waits for every node to agree on the schema; its 10 s were not enough on a
  // loaded cluster (the rolling-restart suite right after the fault suite dropped a keyspace of 200,000 entries): a
  // new table reached the third node later and the first statement on it failed there with "Unknown CF". A node
  // that is down never agrees (system.peers keeps its old version), so the wait stays bounded.
  const client = createCassandraClient({
    contactPoints: config.cassandra.contactPoints,
    localDataCenter: config.cassandra.localDataCenter,
    credentials: config.cassandra.credentials,
    tls: config.cassandra.tls,
    schemaAgreementWaitSeconds: SCHEMA_AGREEMENT_WAIT_S,
  });
  let schemaVersion: number;
  try {
    schemaVersion = await migrate(
      client,
      config.cassandra.keyspace,
      join(schemasDir, 'cql'),
      keyspaceReplication(config.cassandra.replicationFactor, config.cassandra.localDataCenter),
      (version) => moveData(config, version),
    );
  } finally {
    await client.shutdown();
  }

  const registry = createSchemaRegistry(config.schemaRegistry);
  let subjects = 0;
  for (const [id, file] of Object.entries(topicSchemas)) {
    const subject = valueSubject(topicName(config.kafka.topicPrefix, id as TopicId));
    await registerAvro(registry, subject, readFileSync(join(schemasDir, 'avro', file), 'utf8'));
    subjects += 1;
  }
  return { topics, schemaVersion, subjects };
}
