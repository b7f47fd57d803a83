import { Kafka, logLevel, Partitioners, type KafkaConfig, type Producer } from 'kafkajs';
import { kafkajsLogCreator, type Logger } from '../logger/index.js';

export interface KafkaOptions {
  brokers: readonly string[];
  clientId: string;
  logger: Logger;
  /** Milliseconds to wait for a TCP connection to a broker. @defaultValue 3000 */
  connectionTimeout?: number;
  /** Milliseconds to wait for any broker answer. @defaultValue 30000 */
  requestTimeout?: number;
  retry?: KafkaConfig['retry'];
}

/** The one place a kafkajs client is built; its logs go to our logger at WARN and above. */
export function createKafka({
  brokers,
  clientId,
  logger,
  connectionTimeout = 3000,
  requestTimeout = 30000,
  retry,
}: KafkaOptions): Kafka {
  return new Kafka({
    clientId,
    brokers: [...brokers],
    connectionTimeout,
    requestTimeout,
    logLevel: logLevel.WARN,
    logCreator: kafkajsLogCreator(logger),
    ...(retry ? { retry } : {}),
  });
}

/**
 * The producer every service uses: idempotent (a retry inside kafkajs never doubles a record), one request in
 * flight (what kafkajs' idempotence requires), and kafkajs' default murmur2 partitioner named explicitly, the
 * same one Java clients use, so any client keys a user to the same partition.
 */
export function createIdempotentProducer(kafka: Kafka): Producer {
  return kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
}
