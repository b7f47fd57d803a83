import { Kafka, logLevel, type Admin } from 'kafkajs';
import { createCassandraClient } from '../../shared/cassandra/index.js';
import { quietKafkajsTimerWarning } from '../../shared/kafka/index.js';
import type { Config } from '../../shared/config/index.js';
import { cassandraAnswers, kafkaAnswers, registryAnswers } from '../../shared/health/index.js';
import type { ServerSpec } from './servers.js';

/** Whether a server of the local stack answers, through a throwaway client with short timeouts. */
export async function probe(name: ServerSpec['name'], config: Config): Promise<boolean> {
  try {
    switch (name) {
      case 'kafka':
        return await probeKafka(config);
      case 'cassandra':
        return await probeCassandra(config);
      case 'registry':
        return await registryAnswers(config.schemaRegistry.url);
    }
  } catch {
    return false;
  }
}

function probeKafka(config: Config): Promise<boolean> {
  return withProbeAdmin(
    { clientId: 'itinera-probe', brokers: config.kafka.brokers, requestTimeout: 2000 },
    kafkaAnswers,
  );
}

/**
 * Runs `use` with a throwaway Kafka admin client, disconnected after whatever `use` did. Short timeouts, no retries
 * and no logging: a probe wants a quick yes or no, and whoever waits for a server asks again.
 */
export async function withProbeAdmin<T>(
  probe: { clientId: string; brokers: readonly string[]; requestTimeout: number },
  use: (admin: Admin) => Promise<T>,
): Promise<T> {
  quietKafkajsTimerWarning();
  const admin = new Kafka({
    clientId: probe.clientId,
    brokers: [...probe.brokers],
    connectionTimeout: 1000,
    requestTimeout: probe.requestTimeout,
    retry: { retries: 0 },
    logLevel: logLevel.NOTHING,
  }).admin();
  try {
    await admin.connect();
    return await use(admin);
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

async function probeCassandra(config: Config): Promise<boolean> {
  const client = createCassandraClient({
    contactPoints: config.cassandra.contactPoints,
    localDataCenter: config.cassandra.localDataCenter,
    credentials: config.cassandra.credentials,
  });
  try {
    await client.connect();
    return await cassandraAnswers(client);
  } finally {
    await client.shutdown().catch(() => undefined);
  }
}
