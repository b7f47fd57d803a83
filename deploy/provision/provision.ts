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
  const admin = createKafka({ brokers: config.kafka.brokers, clientId: 'itinera-provision', logger }).admin();
  await admin.connect();
  let topics: number;
  try {
    topics = await ensureTopics(admin, config.kafka.topicPrefix, config.kafka.partitions, logger, config.retention);
  } finally {
    await admin.disconnect();
  }

  const client = createCassandraClient({
    contactPoints: config.cassandra.contactPoints,
    localDataCenter: config.cassandra.localDataCenter,
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

  const registry = createSchemaRegistry(config.schemaRegistry.url);
  let subjects = 0;
  for (const [id, file] of Object.entries(topicSchemas)) {
    const subject = valueSubject(topicName(config.kafka.topicPrefix, id as TopicId));
    await registerAvro(registry, subject, readFileSync(join(schemasDir, 'avro', file), 'utf8'));
    subjects += 1;
  }
  return { topics, schemaVersion, subjects };
}
