import {
  Kafka,
  logLevel,
  Partitioners,
  type ICustomPartitioner,
  type KafkaConfig,
  type Producer,
  type SASLOptions,
} from 'kafkajs';
import type { Config } from '../config/index.js';
import { kafkajsLogCreator, type Logger } from '../logger/index.js';
import { safeIdempotentProducer } from './safe-idempotent-producer.js';
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

/** The one place a kafkajs client is built; its logs go to our logger at WARN and above. */
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

/**
 * A kafkajs producer with the project's settings: idempotent (a retry inside kafkajs never doubles a record), one
 * request in flight (what kafkajs' idempotence requires), and kafkajs' default murmur2 partitioner named explicitly,
 * the same one Java clients use, so any client keys a user to the same partition. Private: alone it can acknowledge
 * records it never wrote (safe-idempotent-producer.ts), so everything publishes through createSafeProducer.
 */
function createIdempotentProducer(kafka: Kafka): Producer {
  return kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: rememberingDefaultPartitioner,
  });
}

/**
 * The one producer of the project (the gateway, the workers, the console and the command line): idempotent, its
 * sends one at a time and a failure renewing it (safe-idempotent-producer.ts), since kafkajs alone can acknowledge
 * records it never wrote.
 */
export function createSafeProducer(kafka: Kafka): Producer {
  return safeIdempotentProducer(() => createIdempotentProducer(kafka));
}

/**
 * kafkajs' default partitioner, its answer remembered per key: a put sends up to 10,000 records under one user
 * key, and hashing the same key 10,000 times showed in the gateway's profile. A keyed record's partition depends
 * only on the key and the partition count (murmur2 modulo the count, as in Java clients), so both make the memo key.
 */
const rememberingDefaultPartitioner: ICustomPartitioner = () => {
  const partition = Partitioners.DefaultPartitioner();
  const memo = new Map<string, number>();
  return (args) => {
    const { topic, partitionMetadata, message } = args;
    if ((message.partition !== undefined && message.partition !== null) || !message.key) return partition(args);
    const id = `${topic}\u0000${partitionMetadata.length}\u0000${message.key.toString()}`;
    let chosen = memo.get(id);
    if (chosen === undefined) {
      chosen = partition(args);
      if (memo.size >= 100_000) memo.clear();
      memo.set(id, chosen);
    }
    return chosen;
  };
};
