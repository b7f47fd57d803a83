/** Where the suite's Kafka, Cassandra and schema registry answer, as the global setup provides them. */
export interface ServerAddresses {
  kafkaBrokers: string;
  cassandraContactPoints: string;
  schemaRegistryUrl: string;
  /**
   * A listener of the same broker that demands SASL/PLAIN with deploy/local's LOCAL_KAFKA_SASL account: only the
   * local stack has one, so the tests that need it are skipped on servers from elsewhere.
   */
  saslBrokers?: string;
  /** Whether Cassandra demands a login (the local stack's does, with conf/storage/servers.conf's credentials). */
  cassandraDemandsLogin?: boolean;
}
