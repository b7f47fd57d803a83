import type { ServerAddresses } from './server-addresses.js';

/**
 * For machines with a Docker engine: the same three servers as containers. Loaded only when Docker answers,
 * so machines without it never import testcontainers.
 */
export async function startContainers(): Promise<{ addresses: ServerAddresses; stop: () => Promise<void> }> {
  const { GenericContainer, Wait, Network } = await import('testcontainers');
  const network = await new Network().start();
  const kafka = await new GenericContainer('apache/kafka:4.1.1')
    .withNetwork(network)
    .withNetworkAliases('kafka')
    .withExposedPorts({ container: 9092, host: 9092 })
    .withEnvironment({
      KAFKA_NODE_ID: '1',
      KAFKA_PROCESS_ROLES: 'broker,controller',
      KAFKA_LISTENERS: 'PLAINTEXT://:19092,CONTROLLER://:29093,PLAINTEXT_HOST://:9092',
      KAFKA_ADVERTISED_LISTENERS: 'PLAINTEXT://kafka:19092,PLAINTEXT_HOST://127.0.0.1:9092',
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,PLAINTEXT_HOST:PLAINTEXT',
      KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
      KAFKA_CONTROLLER_QUORUM_VOTERS: '1@kafka:29093',
      KAFKA_INTER_BROKER_LISTENER_NAME: 'PLAINTEXT',
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
      KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
      KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'false',
    })
    .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
    .start();
  const cassandra = await new GenericContainer('cassandra:5.0')
    .withExposedPorts(9042)
    .withEnvironment({
      MAX_HEAP_SIZE: '1G',
      HEAP_NEWSIZE: '200M',
      JVM_OPTS: '-Dcassandra.skip_wait_for_gossip_to_settle=0 -Dcassandra.initial_token=0',
    })
    .withWaitStrategy(Wait.forLogMessage(/Startup complete/))
    .withStartupTimeout(240_000)
    .start();
  const registry = await new GenericContainer('apicurio/apicurio-registry:3.0.9')
    .withExposedPorts(8080)
    .withWaitStrategy(Wait.forHttp('/health/ready', 8080))
    .start();
  return {
    addresses: {
      kafkaBrokers: '127.0.0.1:9092',
      cassandraContactPoints: `${cassandra.getHost()}:${cassandra.getMappedPort(9042)}`,
      schemaRegistryUrl: `http://${registry.getHost()}:${registry.getMappedPort(8080)}/apis/ccompat/v7`,
    },
    stop: async () => {
      await Promise.all([kafka.stop(), cassandra.stop(), registry.stop()]);
      await network.stop();
    },
  };
}
