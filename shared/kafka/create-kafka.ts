import { Kafka, logLevel, type KafkaConfig, type SASLOptions } from 'kafkajs';
import type { Config } from '../config/index.js';
import { kafkajsLogCreator, type Logger } from '../logger/index.js';
import { quietKafkajsTimerWarning } from './timer-warning.js';

export interface KafkaOptions {
  brokers: readonly string[];
  /** The brokers' SASL (`config.kafka.sasl`); none by default. */
  sasl?: Config['kafka']['sasl'];
  /** TLS to the brokers (`config.kafka.tls`); plain TCP by default. */
  tls?: Config['kafka']['tls'];
  clientId: string;
  logger: Logger;
  /** Milliseconds to wait for a TCP connection to a broker. @defaultValue 3000 */
  connectionTimeout?: number;
  /** Milliseconds to wait for any broker answer. @defaultValue 30000 */
  requestTimeout?: number;
  retry?: KafkaConfig['retry'];
}

/**
 * The one place a kafkajs client is built; its logs go to our logger at WARN and above. kafkajs serves the consumer
 * groups and the admin requests; everything the project publishes goes through the keyed producer
 * (keyed-producer.ts) instead.
 */
export function createKafka({
  brokers,
  sasl,
  tls,
  clientId,
  logger,
  connectionTimeout = 3000,
  requestTimeout = 30000,
  retry,
}: KafkaOptions): Kafka {
  quietKafkajsTimerWarning();
  return new Kafka({
    clientId,
    brokers: [...brokers],
    connectionTimeout,
    requestTimeout,
    logLevel: logLevel.WARN,
    logCreator: kafkajsLogCreator(logger),
    ...(retry ? { retry } : {}),
    ...kafkaSecurity(sasl, tls),
  });
}

/** kafkajs' `ssl` and `sasl` options for the configured security; nothing for plain TCP. */
export function kafkaSecurity(
  sasl: Config['kafka']['sasl'] | undefined,
  tls: Config['kafka']['tls'] | undefined,
): Pick<KafkaConfig, 'ssl' | 'sasl'> {
  return {
    ...(tls ? { ssl: tls.ca === undefined ? true : { ca: [tls.ca] } } : {}),
    ...(sasl ? { sasl: saslOption(sasl) } : {}),
  };
}

/** kafkajs types each mechanism's options apart, so the configured one is narrowed here. */
function saslOption({ mechanism, username, password }: NonNullable<Config['kafka']['sasl']>): SASLOptions {
  switch (mechanism) {
    case 'plain':
      return { mechanism, username, password };
    case 'scram-sha-256':
      return { mechanism, username, password };
    case 'scram-sha-512':
      return { mechanism, username, password };
  }
}
