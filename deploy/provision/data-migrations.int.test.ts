import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompositeEntriesTable } from '../../shared/tables/index.js';
import { createTimeseriesReader, dayOf } from '../../shared/timeseries/index.js';
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

  it('When a deployment wrote the data.ts ordering with each entry before 022, then after provisioning those rows still lead to their entries, and the copies are gone', async () => {
    // As a deployment that has not applied 022 yet: the column is back, and rows carry their entry in it.
    await env.cql.write('ALTER TABLE timeseries_by_data_ts ADD entry text', []);
    await env.cql.write('DELETE FROM schema_migrations WHERE version = ?', [22]);
    const user = randomUUID();
    const key = 'background/location';
    const written = [1_700_000_100, 1_700_000_050].map((dataTs) => ({
      dataTs,
      writeTs: dataTs + 3,
      json: JSON.stringify({ metadata: { key, write_ts: dataTs + 3 }, data: { ts: dataTs } }),
    }));
    for (const e of written) {
      await env.cql.write(
        'INSERT INTO timeseries (user_id, key, day, write_ts, type, data_ts, oid, entry) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        [user, key, dayOf(e.writeTs), e.writeTs, 'sensor-data', e.dataTs, `oid${e.dataTs}`, e.json],
      );
      await env.cql.write(
        'INSERT INTO timeseries_by_data_ts (user_id, key, day, data_ts, write_ts, type, entry) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [user, key, dayOf(e.dataTs), e.dataTs, e.writeTs, 'sensor-data', e.json],
      );
      for (const indexKey of [key, `#data.ts#${key}`])
        await env.cql.write('INSERT INTO timeseries_days (user_id, key, day) VALUES (?, ?, ?)', [
          user,
          indexKey,
          dayOf(e.dataTs),
        ]);
    }

    await provision(env.config);
    await provision(env.config); // recorded: nothing runs twice

    const found = await createTimeseriesReader(env.cql).find(user, [key], 'data.ts', 1_700_000_000, 1_700_000_200);
    expect(found).toEqual([written[1]!.json, written[0]!.json]);
    const columns = await env.cql.read(
      'SELECT column_name FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?',
      [env.config.cassandra.keyspace, 'timeseries_by_data_ts'],
    );
    expect(columns.rows.map((r) => r['column_name'])).not.toContain('entry');
  });
});
