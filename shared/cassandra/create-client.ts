import cassandra from 'cassandra-driver';

export type CassandraClient = cassandra.Client;
export const consistencies = cassandra.types.consistencies;

export interface CassandraOptions {
  contactPoints: readonly string[];
  localDataCenter: string;
  /** Keyspace to use; omit for the provisioning client that creates it. */
  keyspace?: string;
}

/**
 * The one place a driver Client is built. Defaults: LOCAL_QUORUM for everything (on one node that is ONE;
 * with RF=3 it survives a node loss for reads and writes alike), prepared statements always.
 */
export function createCassandraClient({ contactPoints, localDataCenter, keyspace }: CassandraOptions): CassandraClient {
  return new cassandra.Client({
    contactPoints: [...contactPoints],
    localDataCenter,
    ...(keyspace ? { keyspace } : {}),
    queryOptions: { consistency: cassandra.types.consistencies.localQuorum, prepare: true },
    socketOptions: { connectTimeout: 5000, readTimeout: 12000 },
    pooling: { coreConnectionsPerHost: { [cassandra.types.distance.local]: 2 } },
  });
}
