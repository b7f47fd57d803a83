import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CassandraClient } from '../../shared/cassandra/index.js';
import { repoRoot } from '../../shared/config/repo-root.js';

/*
 * Keyspaces handed from one test file to the next. Creating a keyspace of every table takes some 50 DDL statements
 * (4-5 s on the local node) and dropping it 1-2 s more, for each of the suite's integration files; emptying one with
 * TRUNCATE takes about half a second. A file's environment therefore leaves its keyspace here when it is disposed,
 * and a later environment takes it over once the process that used it has exited (so no write of a service that was
 * still closing can land after the emptying), after checking that it was made from the very migration files this
 * checkout ships (their digest) and still has the tables and applied versions it had when it was left. Anything else
 * (a branch switched, a migration edited, a keyspace gone) is dropped and made anew, and so is one that cannot be
 * emptied.
 *
 * The pool is a folder of one file per keyspace, `<keyspace>.<pid>.json`, per Cassandra address, under .infra/ with
 * the local servers; renaming a file is the claim, which only one process can win.
 */

interface PoolEntry {
  /** SHA-256 of the migration files the keyspace was made from. */
  migrations: string;
  /** The keyspace's tables when it was released. */
  tables: string[];
  /** Its applied migration versions. */
  versions: number[];
}

function poolDir(contactPoints: readonly string[]): string {
  const dir = join(repoRoot, '.infra', 'test-keyspaces', contactPoints.join(',').replace(/[^\w.-]+/g, '_'));
  mkdirSync(dir, { recursive: true });
  return dir;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function tablesOf(client: CassandraClient, keyspace: string): Promise<string[]> {
  const rs = await client.execute('SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?', [keyspace], {
    prepare: true,
  });
  return rs.rows.map((r) => String(r['table_name'])).sort();
}

async function versionsOf(client: CassandraClient, keyspace: string): Promise<number[]> {
  const rs = await client.execute(`SELECT version FROM ${keyspace}.schema_migrations`);
  return rs.rows.map((r) => Number(r['version'])).sort((a, b) => a - b);
}

/** The digest of schemas/cql: two keyspaces made from the same files have the same tables, column for column. */
function migrationsDigest(): string {
  const dir = join(repoRoot, 'schemas', 'cql');
  const hash = createHash('sha256');
  for (const file of readdirSync(dir).sort())
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(join(dir, file)));
  return hash.digest('hex');
}

const sameList = <T>(a: readonly T[], b: readonly T[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * A pooled keyspace, emptied, whose migrations are the `versions` this checkout ships; undefined when none is free.
 * `client` is connected without a keyspace.
 */
export async function claimKeyspace(
  client: CassandraClient,
  contactPoints: readonly string[],
  versions: readonly number[],
): Promise<string | undefined> {
  const dir = poolDir(contactPoints);
  for (const file of readdirSync(dir)) {
    const match = /^(\w+)\.(\d+)\.json$/.exec(file);
    if (!match || alive(Number(match[2]))) continue;
    const keyspace = match[1]!;
    const claimed = join(dir, `${file}.claimed-${process.pid}`);
    try {
      renameSync(join(dir, file), claimed);
    } catch {
      continue; // another process claimed it first
    }
    try {
      const entry = JSON.parse(readFileSync(claimed, 'utf8')) as PoolEntry;
      const tables = await tablesOf(client, keyspace);
      const usable =
        entry.migrations === migrationsDigest() &&
        tables.length > 0 &&
        sameList(tables, entry.tables) &&
        sameList(await versionsOf(client, keyspace), versions) &&
        sameList(entry.versions, versions);
      if (!usable) {
        await client.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
        continue;
      }
      await Promise.all(
        tables.filter((t) => t !== 'schema_migrations').map((t) => client.execute(`TRUNCATE ${keyspace}.${t}`)),
      );
      return keyspace;
    } catch {
      // A keyspace that vanished (servers started afresh), cannot be read or was not wholly emptied: gone, and the
      // next one or a fresh keyspace instead.
      await client.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`).catch(() => undefined);
      continue;
    } finally {
      unlinkSync(claimed);
    }
  }
  return undefined;
}

/** Leaves the keyspace for a later environment; it is emptied when claimed, after this process has exited. */
export async function releaseKeyspace(
  client: CassandraClient,
  contactPoints: readonly string[],
  keyspace: string,
): Promise<void> {
  const entry: PoolEntry = {
    migrations: migrationsDigest(),
    tables: await tablesOf(client, keyspace),
    versions: await versionsOf(client, keyspace),
  };
  writeFileSync(join(poolDir(contactPoints), `${keyspace}.${process.pid}.json`), JSON.stringify(entry));
}
