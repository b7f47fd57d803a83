import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompositeEntriesTable } from '../../shared/tables/index.js';
import { createTestEnv, type TestEnv } from '../../test/helpers/test-env.js';
import { provision } from './provision.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.dispose();
});

describe('data migrations', () => {
  it('When a deployment built before 009 is provisioned again, then its composite days are served from composite_entries', async () => {
    // As a deployment that has not applied 009 (nor 011, which drops the old table) yet.
    await env.cql.write(
      'CREATE TABLE IF NOT EXISTS composite_days (user_id uuid, local_date text, trips text, update_ts timestamp, PRIMARY KEY ((user_id), local_date))',
      [],
    );
    for (const version of [9, 11]) await env.cql.write('DELETE FROM schema_migrations WHERE version = ?', [version]);
    const user = randomUUID();
    const trips = [1000, 2000].map((end) => ({
      _id: { $oid: `trip${end}` },
      metadata: { key: 'analysis/composite_trip' },
      data: { start_ts: end - 100, end_ts: end },
    }));
    await env.cql.write('INSERT INTO composite_days (user_id, local_date, trips, update_ts) VALUES (?, ?, ?, ?)', [
      user,
      '1970-01-01',
      JSON.stringify(trips),
      new Date(),
    ]);

    await provision(env.config);
    await provision(env.config); // recorded: nothing runs twice

    const served: unknown[] = [];
    for await (const row of createCompositeEntriesTable(env.cql).range(user, 0, 3000))
      served.push(JSON.parse(row.json));
    expect(served).toEqual(trips);
    const tables = await env.cql.read('SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?', [
      env.config.cassandra.keyspace,
    ]);
    expect(tables.rows.map((r) => r['table_name'])).not.toContain('composite_days');
  });
});
