import cassandra from 'cassandra-driver';
import type { Config } from '../config/index.js';

export type CassandraClient = cassandra.Client;
export const consistencies = cassandra.types.consistencies;

export interface CassandraOptions {
  contactPoints: readonly string[];
  localDataCenter: string;
  /** Keyspace to use; omit for the provisioning client that creates it. */
  keyspace?: string;
  /**
   * How long the driver waits after a schema change for every node to agree on it before the next statement
   * (the driver's default: 10 s). @defaultValue 10
   */
  schemaAgreementWaitSeconds?: number;
  /** For a cluster with `PasswordAuthenticator` (`config.cassandra.credentials`); none by default. */
  credentials?: Config['cassandra']['credentials'];
  /** TLS to the nodes (`config.cassandra.tls`); plain TCP by default. */
  tls?: Config['cassandra']['tls'];
  /** Sends every request to this one node (`host:port`) as coordinator: a probe of what that node sees. */
  onlyCoordinator?: string;
}

/**
 * The one place a driver Client is built. Defaults: LOCAL_QUORUM for everything (on one node that is ONE;
 * with RF=3 it survives a node loss for reads and writes alike), prepared statements always.
 */
export function createCassandraClient({
  contactPoints,
  localDataCenter,
  keyspace,
  schemaAgreementWaitSeconds = 10,
  credentials,
  tls,
  onlyCoordinator,
}: CassandraOptions): CassandraClient {
  return new cassandra.Client({
    contactPoints: [...contactPoints],
    localDataCenter,
    ...(keyspace ? { keyspace } : {}),
    queryOptions: { consistency: cassandra.types.consistencies.localQuorum, prepare: true },
    socketOptions: { connectTimeout: 5000, readTimeout: 12000 },
    protocolOptions: { maxSchemaAgreementWaitSeconds: schemaAgreementWaitSeconds },
    pooling: { coreConnectionsPerHost: { [cassandra.types.distance.local]: 2 } },
    ...(onlyCoordinator === undefined
      ? {}
      : {
          policies: {
            loadBalancing: new cassandra.policies.loadBalancing.AllowListPolicy(
              new cassandra.policies.loadBalancing.DCAwareRoundRobinPolicy(localDataCenter),
              [onlyCoordinator],
            ),
          },
        }),
    ...(credentials ? { credentials: { username: credentials.username, password: credentials.password } } : {}),
    // The node's certificate is verified against the CA (Node.js' own list without one). The driver reaches the
    // nodes it discovers by IP address, so Node.js checks each certificate against that IP (a SAN entry).
    ...(tls ? { sslOptions: { rejectUnauthorized: true, ...(tls.ca === undefined ? {} : { ca: [tls.ca] }) } } : {}),
  });
}
