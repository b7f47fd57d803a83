import { loadConfig } from '../../shared/config/index.js';
import { createCassandraClient, createCql } from '../../shared/cassandra/index.js';
import { createKafka } from '../../shared/kafka/index.js';
import { createLogger } from '../../shared/logger/index.js';
import { createAvroCodec, createSchemaRegistry } from '../../shared/schema-registry/index.js';
import { createErrorTimeseries } from '../../shared/timeseries/index.js';
import { createIntakeLog } from '../../shared/logger/intake-log.js';
import { runConverter } from './run-converter.js';
import { createTimeseriesWriter } from './store/cassandra-timeseries-writer.js';

/** Usage: tsx services/converter/main.ts [worker number]. The number names the intake_<n>.log.gz file. */
async function main(): Promise<void> {
  const config = loadConfig();
  const worker = Number(process.argv[2] ?? 0);
  const logger = createLogger({ component: 'converter', level: 'info' });
  const cassandra = createCassandraClient({ ...config.cassandra });
  const cql = createCql(cassandra);
  const kafka = createKafka({ brokers: config.kafka.brokers, clientId: `itinera-converter-${worker}`, logger });
  const running = await runConverter(kafka, {
    codec: createAvroCodec(createSchemaRegistry(config.schemaRegistry.url)),
    timeseries: createTimeseriesWriter(cql),
    errors: createErrorTimeseries(cql),
    topicPrefix: config.kafka.topicPrefix,
    logger,
    intakeLog: createIntakeLog(config.log.intakeDir, worker),
    onFatal: (error) => {
      logger.error('Consumer stopped for good; exiting so the worker is restarted', { error: error.message });
      process.exit(1);
    },
  });
  logger.info('Converter running', { worker });
  const stop = async () => {
    // Leaving the group cleanly hands partitions over at once; if Kafka is already gone, do not hang on it.
    setTimeout(() => process.exit(0), 10_000).unref();
    await running.stop();
    await cassandra.shutdown();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

main().catch((err: unknown) => {
  console.error('converter failed:', err);
  process.exit(1);
});
