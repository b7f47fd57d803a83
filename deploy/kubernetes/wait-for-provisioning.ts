/**
 * The services' init container on Kubernetes (`node dist/deploy/kubernetes/wait-for-provisioning.js`): returns once
 * the provisioning Job (`node dist/deploy/provision/cli.js`) has brought the servers to what this image's code
 * expects, so a new release's services never start against the previous release's tables or schemas:
 * - every CQL migration this image ships (schemas/cql) is recorded in the keyspace's `schema_migrations`;
 * - every topic's Avro schema this image ships (schemas/avro) is registered under the topic's value subject
 *   (provisioning registers them last, after the topics and the tables).
 * It polls every few seconds and says what it still waits for; it never gives up (the pod shows `Init:0/1`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SchemaType } from '@kafkajs/confluent-schema-registry';
import { createCassandraClient } from '../../shared/cassandra/index.js';
import { loadConfig, type Config } from '../../shared/config/index.js';
import { repoRoot } from '../../shared/config/repo-root.js';
import { topicName, type TopicId } from '../../shared/events/index.js';
import { createSchemaRegistry, valueSubject } from '../../shared/schema-registry/index.js';
import { migrationVersions } from '../provision/migrate.js';
import { topicSchemas } from '../provision/provision.js';

const POLL_MS = 5000;

/** What is still missing: the migrations not yet recorded, and the subjects whose schema is not yet registered. */
export function missingSteps(
  applied: ReadonlySet<number>,
  shipped: readonly number[],
  unregistered: readonly string[],
): string[] {
  return [
    ...shipped.filter((v) => !applied.has(v)).map((v) => `CQL migration ${String(v).padStart(3, '0')}`),
    ...unregistered.map((subject) => `Avro schema of ${subject}`),
  ];
}

async function appliedMigrations(config: Config): Promise<Set<number>> {
  const client = createCassandraClient({
    contactPoints: config.cassandra.contactPoints,
    localDataCenter: config.cassandra.localDataCenter,
    credentials: config.cassandra.credentials,
    tls: config.cassandra.tls,
  });
  try {
    const rs = await client.execute(`SELECT version FROM ${config.cassandra.keyspace}.schema_migrations`);
    return new Set(rs.rows.map((r) => Number(r['version'])));
  } finally {
    await client.shutdown();
  }
}

async function unregisteredSubjects(config: Config): Promise<string[]> {
  const registry = createSchemaRegistry(config.schemaRegistry);
  const missing: string[] = [];
  for (const [id, file] of Object.entries(topicSchemas)) {
    const subject = valueSubject(topicName(config.kafka.topicPrefix, id as TopicId));
    const schema = readFileSync(join(repoRoot, 'schemas', 'avro', file), 'utf8');
    // Throws (404) until provisioning has registered this very schema under the subject.
    await registry.getRegistryIdBySchema(subject, { type: SchemaType.AVRO, schema }).catch(() => missing.push(subject));
  }
  return missing;
}

async function main(): Promise<void> {
  const config = loadConfig();
  const shipped = migrationVersions(readdirSync(join(repoRoot, 'schemas', 'cql')));
  for (;;) {
    let missing: string[];
    try {
      missing = missingSteps(await appliedMigrations(config), shipped, await unregisteredSubjects(config));
    } catch (err) {
      missing = [`the servers (${err instanceof Error ? err.message : String(err)})`];
    }
    if (missing.length === 0) {
      process.stdout.write(
        `provisioned: CQL migrations up to ${shipped.at(-1) ?? 0} and every Avro schema of this image\n`,
      );
      return;
    }
    process.stdout.write(`waiting for provisioning: ${missing.join(', ')}\n`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`wait-for-provisioning failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
