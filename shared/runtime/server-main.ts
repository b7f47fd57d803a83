import type { Server } from 'node:http';
import type { Kafka } from 'kafkajs';
import { createCassandraClient, type CassandraClient } from '../cassandra/index.js';
import { loadConfig, refuseExposure, type Config } from '../config/index.js';
import { createKafka, type KafkaOptions } from '../kafka/index.js';
import { createLogger, type Logger } from '../logger/index.js';
import { stopOnSignals } from './stop-on-signals.js';

/** What an HTTP service's main.ts is handed to wire its app from. */
export interface ServerProcess {
  config: Config;
  logger: Logger;
  cassandra: CassandraClient;
  kafka: Kafka;
}

/** What the service started: its listening server, what to close after it, and the line that says where it is. */
export interface StartedServer {
  server: Server;
  close(): Promise<void>;
  banner: string;
}

/**
 * An HTTP service's process (gateway, console): reads the configuration, makes the logger and the Cassandra and
 * Kafka clients, starts the service, prints where it listens, and on SIGTERM or SIGINT stops taking connections,
 * closes the service, then Cassandra. A service that fails to start prints why and exits 1.
 */
export function serverMain(
  component: 'gateway' | 'console',
  kafkaOptions: Pick<KafkaOptions, 'retry'>,
  start: (process: ServerProcess) => Promise<StartedServer>,
): void {
  const main = async () => {
    const config = loadConfig();
    const logger = createLogger({ component, level: 'info' });
    refuseExposure(config, component, (line) => logger.warn(line));
    const cassandra = createCassandraClient({ ...config.cassandra });
    const kafka = createKafka({ ...config.kafka, ...kafkaOptions, clientId: `itinera-${component}`, logger });
    const started = await start({ config, logger, cassandra, kafka });
    process.stdout.write(`${started.banner}\n`);
    stopOnSignals(async (signal) => {
      logger.info('Stopping', { signal });
      started.server.close();
      await started.close();
      await cassandra.shutdown().catch(() => undefined);
    });
  };
  main().catch((err: unknown) => {
    process.stderr.write(
      `${component} failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  });
}
