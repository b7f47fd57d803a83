import cassandra from 'cassandra-driver';

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
}: CassandraOptions): CassandraClient {
  return new cassandra.Client({
    contactPoints: [...contactPoints],
    localDataCenter,
    ...(keyspace ? { keyspace } : {}),
    queryOptions: { consistency: cassandra.types.consistencies.localQuorum, prepare: true },
    socketOptions: { connectTimeout: 5000, readTimeout: 12000 },
    protocolOptions: { maxSchemaAgreementWaitSeconds: schemaAgreementWaitSeconds },
    pooling: { coreConnectionsPerHost: { [cassandra.types.distance.local]: 2 } },
  });
}
