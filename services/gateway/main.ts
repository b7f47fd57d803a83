import { loadConfig } from '../../shared/config/index.js';
import { createCassandraClient, createCql } from '../../shared/cassandra/index.js';
import { topicName } from '../../shared/events/index.js';
import { createIdempotentProducer, createKafka } from '../../shared/kafka/index.js';
import { createLogger } from '../../shared/logger/index.js';
import { createAvroCodec, createSchemaRegistry } from '../../shared/schema-registry/index.js';
import { createTimeseriesReader } from '../../shared/timeseries/index.js';
import { createApp } from './app.js';
import { createDependencyProbes } from './dependency-probes.js';
import { createUsercachePublisher } from './ingest/kafka-usercache-publisher.js';
import { createCassandraDocumentReader } from './store/cassandra-document-store.js';
import { createCassandraDiaryReader } from './store/cassandra-diary-reader.js';
import { createPipelineStateReader } from './store/cassandra-pipeline-state-reader.js';
import { createCassandraProfileStore } from './store/cassandra-profile-store.js';
import { createCassandraCustomLabelStore } from './store/cassandra-custom-label-store.js';
import { createCassandraUserStore } from './store/cassandra-user-store.js';
import { createWebLog } from './web-log.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ component: 'gateway', level: 'info' });
  const webLog = createWebLog(config.log.dir, config.log.level);
  const cassandra = createCassandraClient({ ...config.cassandra, keyspace: config.cassandra.keyspace });
  const cql = createCql(cassandra);
  const kafka = createKafka({
    brokers: config.kafka.brokers,
    clientId: 'itinera-gateway',
    logger,
    retry: { retries: 3, initialRetryTime: 200, maxRetryTime: 2000 },
  });
  const producer = createIdempotentProducer(kafka);
  const codec = createAvroCodec(createSchemaRegistry(config.schemaRegistry.url));
  const readiness = createDependencyProbes({ kafka, cassandra, registryUrl: config.schemaRegistry.url });

  const app = createApp({
    config,
    users: createCassandraUserStore(cql, { cacheEntries: config.webserver.userCacheEntries }),
    profiles: createCassandraProfileStore(cql),
    customLabels: createCassandraCustomLabelStore(cql),
    documents: createCassandraDocumentReader(cql),
    diary: createCassandraDiaryReader(cql),
    timeseries: createTimeseriesReader(cql),
    pipeline: createPipelineStateReader(cql),
    publisher: createUsercachePublisher({
      producer,
      codec,
      topic: topicName(config.kafka.topicPrefix, 'usercache'),
      sendTimeoutMs: config.kafka.ackTimeoutMs,
    }),
    webLog,
    probes: readiness.probes,
  });
  const server = app.listen(config.webserver.port, config.webserver.host);
  server.requestTimeout = config.webserver.timeoutSeconds * 1000;
  // Idle keep-alive connections stay open longer than clients and proxies keep theirs (nginx, load balancers: 60 s),
  // so the server never closes one at the instant a client reuses it: that race fails a request with a reset.
  server.keepAliveTimeout = 65_000;
  // Headers must arrive within this (a slow-headers client is dropped); above keepAliveTimeout, as Node requires.
  server.headersTimeout = 66_000;
  process.stdout.write(
    `Itinera gateway listening on http://${config.webserver.host}:${config.webserver.port} (auth ${config.webserver.auth})\n`,
  );

  const stop = async (signal: string) => {
    logger.info('Stopping', { signal });
    setTimeout(() => process.exit(0), 10_000).unref();
    server.close();
    await producer.disconnect().catch(() => undefined);
    await readiness.close().catch(() => undefined);
    await cassandra.shutdown().catch(() => undefined);
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

main().catch((err: unknown) => {
  console.error('gateway failed to start:', err);
  process.exit(1);
});
