import type { Admin } from 'kafkajs';
import type { CassandraClient } from '../cassandra/index.js';

/**
 * One real request per server, the kind the services make: a Kafka admin call, a CQL query, a schema-registry
 * read. A port that merely accepts connections is not "ready". Each takes a client the caller owns, so a
 * long-running service probes through its own connections instead of opening new ones per check.
 */
export async function kafkaAnswers(admin: Admin): Promise<boolean> {
  const cluster = await admin.describeCluster();
  return cluster.brokers.length > 0;
}

export async function cassandraAnswers(client: CassandraClient): Promise<boolean> {
  const rs = await client.execute('SELECT release_version FROM system.local');
  return rs.rows.length === 1;
}

export async function registryAnswers(url: string): Promise<boolean> {
  const res = await fetch(`${url}/subjects`, { signal: AbortSignal.timeout(3000) });
  return res.ok;
}
