import { Kafka, logLevel } from 'kafkajs';
import cassandra from 'cassandra-driver';
import type { Config } from '../../shared/config/index.js';
import type { ServerSpec } from './servers.js';

/**
 * One real request per server, the same kind the services make: a Kafka admin call, a CQL query, a
 * schema-registry read. A port that merely accepts connections is not "ready".
 */
export async function probe(name: ServerSpec['name'], config: Config): Promise<boolean> {
  try {
    switch (name) {
      case 'kafka':
        return await probeKafka(config);
      case 'cassandra':
        return await probeCassandra(config);
      case 'registry':
        return await probeRegistry(config);
    }
  } catch {
    return false;
  }
}

async function probeKafka(config: Config): Promise<boolean> {
  const admin = new Kafka({
    clientId: 'itinera-probe',
    brokers: [...config.kafka.brokers],
    connectionTimeout: 1000,
    requestTimeout: 2000,
    retry: { retries: 0 },
    logLevel: logLevel.NOTHING,
  }).admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    return cluster.brokers.length > 0;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

async function probeCassandra(config: Config): Promise<boolean> {
  const client = new cassandra.Client({
    contactPoints: [...config.cassandra.contactPoints],
    localDataCenter: config.cassandra.localDataCenter,
    socketOptions: { connectTimeout: 2000, readTimeout: 4000 },
  });
  try {
    await client.connect();
    const rs = await client.execute('SELECT release_version FROM system.local');
    return rs.rows.length === 1;
  } finally {
    await client.shutdown().catch(() => undefined);
  }
}

async function probeRegistry(config: Config): Promise<boolean> {
  const res = await fetch(`${config.schemaRegistry.url}/subjects`, { signal: AbortSignal.timeout(3000) });
  return res.ok;
}
