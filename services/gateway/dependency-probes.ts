import type { Kafka } from 'kafkajs';
import type { CassandraClient } from '../../shared/cassandra/index.js';
import { cassandraAnswers, kafkaAnswers, registryAnswers } from '../../shared/health/index.js';
import type { DependencyProbe } from './routes/health.js';
import { once } from '../../shared/runtime/once.js';

/**
 * The readiness checks of `/ready`, through the gateway's own long-lived Cassandra client and one admin
 * connection kept for the purpose: a probe polled every few seconds must not open new clients each time.
 */
export function createDependencyProbes({
  kafka,
  cassandra,
  registryUrl,
}: {
  kafka: Kafka;
  cassandra: CassandraClient;
  registryUrl: string;
}) {
  const admin = kafka.admin();
  const connected = once(() => admin.connect());
  const safely = (check: () => Promise<boolean>) => () => check().catch(() => false);
  const probes: Record<string, DependencyProbe> = {
    kafka: safely(async () => {
      await connected();
      return kafkaAnswers(admin);
    }),
    cassandra: safely(() => cassandraAnswers(cassandra)),
    schema_registry: safely(() => registryAnswers(registryUrl)),
  };
  return { probes, close: () => admin.disconnect() };
}
