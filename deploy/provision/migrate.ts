import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CassandraClient } from '../../shared/cassandra/index.js';

/** A migration file's name: `NNN-name.cql`, applied in the order of NNN. */
const MIGRATION_FILE = /^\d{3}-.+\.cql$/;

/** The migration versions among the file names of schemas/cql, ascending. */
export function migrationVersions(files: readonly string[]): number[] {
  return files
    .filter((f) => MIGRATION_FILE.test(f))
    .map((f) => Number(f.slice(0, 3)))
    .sort((a, b) => a - b);
}

/** The single local node's keyspace replication, unchanged since the first release. */
export const SINGLE_NODE_REPLICATION = "{'class': 'SimpleStrategy', 'replication_factor': 1}";

/**
 * The keyspace replication for `replicationFactor` replicas in `dataCenter`: one replica keeps the single-node
 * SimpleStrategy; more is NetworkTopologyStrategy in the local datacenter, which LOCAL_QUORUM (every query's
 * consistency) counts in, so three replicas survive one node down for reads and writes alike.
 */
export function keyspaceReplication(replicationFactor: number, dataCenter: string): string {
  if (replicationFactor <= 1) return SINGLE_NODE_REPLICATION;
  if (!/^[\w.-]+$/.test(dataCenter)) throw new Error(`unusable datacenter name ${dataCenter}`);
  return `{'class': 'NetworkTopologyStrategy', '${dataCenter}': ${replicationFactor}}`;
}

/**
 * Versioned, idempotent schema migrations: `schemas/cql/NNN-name.cql` are applied in order, each statement
 * at most once per keyspace (recorded in `schema_migrations`), and every statement is itself `IF NOT EXISTS`
 * so a migration interrupted halfway can simply run again.
 */
export async function migrate(
  client: CassandraClient,
  keyspace: string,
  migrationsDir: string,
  replication = SINGLE_NODE_REPLICATION,
  /** Runs after a version's statements, before the version is recorded (see data-migrations.ts). */
  afterVersion: (version: number) => Promise<void> = async () => {},
): Promise<number> {
  await client.execute(`CREATE KEYSPACE IF NOT EXISTS ${keyspace} WITH replication = ${replication}`);
  await client.execute(
    `CREATE TABLE IF NOT EXISTS ${keyspace}.schema_migrations (version int PRIMARY KEY, name text, applied_at timestamp)`,
  );
  const applied = new Set(
    (await client.execute(`SELECT version FROM ${keyspace}.schema_migrations`)).rows.map((r) => Number(r['version'])),
  );
  const files = readdirSync(migrationsDir)
    .filter((f) => MIGRATION_FILE.test(f))
    .sort();
  let version = 0;
  for (const file of files) {
    version = Number(file.slice(0, 3));
    if (applied.has(version)) continue;
    const statements = readFileSync(join(migrationsDir, file), 'utf8')
      .split('\n')
      .filter((line) => !line.trim().startsWith('--'))
      .join('\n')
      .split(';')
      .map((s) => s.trim())
      .filter(Boolean);
    for (const statement of statements) {
      await client.execute(
        statement.replace(/(TABLE IF NOT EXISTS|INDEX IF NOT EXISTS|TABLE IF EXISTS) (\w+)/, `$1 ${keyspace}.$2`),
      );
    }
    await afterVersion(version);
    await client.execute(
      `INSERT INTO ${keyspace}.schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
      [version, file, new Date()],
      { prepare: true },
    );
  }
  return version;
}
