/**
 * A Cassandra that demands a login (PasswordAuthenticator, K8ssandra's default): the local stack's node does, and
 * every integration test's client logs in with conf/storage/servers.conf's credentials. Here: without them, or with a
 * wrong password, the driver does not connect and says why.
 */
import { inject, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/index.js';
import { createCassandraClient } from './create-client.js';

const demandsLogin = inject('servers').cassandraDemandsLogin === true;
if (!demandsLogin)
  process.stderr.write(
    '\n!!! The Cassandra login tests are SKIPPED: the servers come from the environment, which does not say Cassandra demands a login.\n\n',
  );

describe.runIf(demandsLogin)('Cassandra with a login', () => {
  const { cassandra } = loadConfig({
    env: { ...process.env, CASSANDRA_CONTACT_POINTS: inject('servers').cassandraContactPoints },
  });

  it('When the configured credentials are given, then the client connects and reads', async () => {
    const client = createCassandraClient({ ...cassandra, keyspace: undefined });
    try {
      await client.connect();
      const rs = await client.execute('SELECT release_version FROM system.local');
      expect(String(rs.rows[0]?.['release_version'])).toMatch(/^5\./);
    } finally {
      await client.shutdown();
    }
  });

  it.each([
    [
      'a wrong password',
      { username: cassandra.credentials!.username, password: 'wrong' },
      /Provided username .* and\/or password are incorrect/,
    ],
    ['no credentials', null, /requires authentication|No auth provider/i],
  ] as const)('When the client has %s, then connecting fails with the reason', async (_, credentials, reason) => {
    const client = createCassandraClient({ ...cassandra, keyspace: undefined, credentials });
    try {
      await expect(client.connect()).rejects.toThrow(reason);
    } finally {
      await client.shutdown();
    }
  });
});
