import { createCassandraClient, createCql, type Cql } from '../cassandra/index.js';
import { loadConfig, refuseExposure, type Config } from '../config/index.js';
import { createKafka, createKeyedProducer, type RunningWorker, type WorkerClients } from '../kafka/index.js';
import { createLogger, type Logger } from '../logger/index.js';
import { createAvroCodec, createSchemaRegistry, type AvroCodec } from '../schema-registry/index.js';
import { stopOnSignals } from './stop-on-signals.js';

/** What a worker's main.ts is handed to wire its worker from. */
export interface WorkerProcess {
  config: Config;
  /** The worker number, the first argument (default 0): it names the worker's intake log file. */
  worker: number;
  logger: Logger;
  cql: Cql;
  /** The worker's Kafka clients: kafkajs for its consumer group, and its producer (the worker closes it). */
  clients: WorkerClients;
  /** What every worker's options take alike, to spread into them. */
  common: WorkerCommon;
}

export interface WorkerCommon {
  codec: AvroCodec;
  topicPrefix: string;
  logger: Logger;
  /** Exits 1, so the supervisor (npm start, systemd, Kubernetes) starts a fresh worker. */
  onFatal(error: Error): void;
}

/**
 * A pipeline worker's process (`tsx services/<component>/main.ts [worker number]`): reads the configuration, makes
 * the logger and the Cassandra and Kafka clients, starts the worker with them, and on SIGTERM or SIGINT stops it
 * and closes Cassandra (stopOnSignals). A worker that fails to start exits 1.
 */
export function workerMain(
  component: 'converter' | 'trip-builder',
  start: (process: WorkerProcess) => Promise<RunningWorker>,
): void {
  const main = async () => {
    const config = loadConfig();
    const worker = Number(process.argv[2] ?? 0);
    const logger = createLogger({ component, level: 'info' });
    refuseExposure(config, 'worker', (line) => logger.warn(line));
    const cassandra = createCassandraClient({ ...config.cassandra });
    const clientId = `itinera-${component}-${worker}`;
    const kafka = createKafka({ ...config.kafka, clientId, logger });
    const producer = createKeyedProducer({ ...config.kafka, clientId });
    const running = await start({
      config,
      worker,
      logger,
      cql: createCql(cassandra),
      clients: { kafka, producer },
      common: {
        codec: createAvroCodec(createSchemaRegistry(config.schemaRegistry)),
        topicPrefix: config.kafka.topicPrefix,
        logger,
        onFatal: () => process.exit(1),
      },
    });
    logger.info('Worker running', { worker });
    stopOnSignals(async () => {
      await running.stop();
      await cassandra.shutdown();
    });
  };
  main().catch((err: unknown) => {
    console.error(`${component} failed:`, err);
    process.exit(1);
  });
}
