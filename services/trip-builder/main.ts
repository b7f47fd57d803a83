import { createCassandraClient, createCql } from '../../shared/cassandra/index.js';
import { loadConfig } from '../../shared/config/index.js';
import { createKafka } from '../../shared/kafka/index.js';
import { createIntakeLog, createLogger } from '../../shared/logger/index.js';
import { createAvroCodec, createSchemaRegistry } from '../../shared/schema-registry/index.js';
import { createErrorTimeseries, createTimeseriesReader } from '../../shared/timeseries/index.js';
import { runTripBuilder } from './run-trip-builder.js';
import { createCassandraTripStore } from './store/cassandra-trip-store.js';
import { createUsercacheDocuments } from './store/cassandra-usercache-documents.js';

/** Usage: tsx services/trip-builder/main.ts [worker number]. The number names the intake_<n>-trips.log.gz file. */
async function main(): Promise<void> {
  const config = loadConfig();
  const worker = Number(process.argv[2] ?? 0);
  const logger = createLogger({ component: 'trip-builder', level: 'info' });
  const cassandra = createCassandraClient({ ...config.cassandra });
  const cql = createCql(cassandra);
  const kafka = createKafka({ brokers: config.kafka.brokers, clientId: `itinera-trip-builder-${worker}`, logger });
  const running = await runTripBuilder(kafka, {
    codec: createAvroCodec(createSchemaRegistry(config.schemaRegistry.url)),
    timeseries: createTimeseriesReader(cql),
    trips: createCassandraTripStore(cql),
    documents: createUsercacheDocuments(cql),
    errors: createErrorTimeseries(cql),
    topicPrefix: config.kafka.topicPrefix,
    logger,
    pipelineLog: createIntakeLog(config.log.intakeDir, worker, 'info', 'trips'),
    now: () => Date.now() / 1000,
    onFatal: (error) => {
      logger.error('Consumer stopped for good; exiting so the worker is restarted', { error: error.message });
      process.exit(1);
    },
  });
  logger.info('Trip builder running', { worker });
  const stop = async () => {
    setTimeout(() => process.exit(0), 10_000).unref();
    await running.stop();
    await cassandra.shutdown();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

main().catch((err: unknown) => {
  console.error('trip builder failed:', err);
  process.exit(1);
});
