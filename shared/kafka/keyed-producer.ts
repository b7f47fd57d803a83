import { compatibilityPartitioner, ProduceAcks, Producer } from '@platformatic/kafka';
import pLimit from 'p-limit';
import type { Config } from '../config/index.js';
import { requestChunks, type ChunkLimits } from './send-chunked.js';

/** A record as the producer sends it: already encoded, keyed by whose it is. */
export interface KeyedRecord {
  key: Buffer;
  value: Buffer;
}

/** Where Kafka wrote a request's records of one partition: the first record's offset. */
export interface WrittenAt {
  topic: string;
  partition: number;
  baseOffset: bigint;
}

export interface KeyedProducer {
  /**
   * Sends the records in order, in requests cut by `requestChunks`, and resolves once Kafka acknowledged every one
   * on all in-sync replicas. `records` may be lazy (a generator that encodes): the next request is encoded while the
   * one before is on the wire.
   */
  send(topic: string, records: Iterable<KeyedRecord>, limits?: ChunkLimits): Promise<WrittenAt[]>;
  close(): Promise<void>;
}

export interface KeyedProducerOptions {
  brokers: readonly string[];
  sasl?: Config['kafka']['sasl'];
  tls?: Config['kafka']['tls'];
  clientId: string;
  /** Milliseconds to wait for a TCP connection to a broker. @defaultValue 3000 */
  connectTimeout?: number;
  /** Milliseconds to wait for a broker's answer to one request. @defaultValue 30000 */
  requestTimeout?: number;
  /**
   * Times a request is sent again after a retriable failure (a broker away, "not leader"), the pause doubling from
   * 300 ms to at most 3 s. @defaultValue 5
   */
  retries?: number;
}

/**
 * A producer of keyed records on @platformatic/kafka, with the project's settings: idempotent with acks=all, and
 * Java's (and kafkajs') partitioner, so a user's records land on the partition every other client of the project
 * picks for that user. The library's own default partitioner (`murmur2 >>> 0`) agrees with it only for a power-of-two
 * number of partitions.
 *
 * Requests go one at a time. After a failed request the library drops its producer id and sequence numbers itself,
 * so numbers a failed request held are never handed out again under the same id: the loss kafkajs needed
 * safe-idempotent-producer.ts for cannot happen. One at a time keeps a failed request's own retries the next to use
 * its numbers, as there.
 */
export function createKeyedProducer({
  brokers,
  sasl,
  tls,
  clientId,
  connectTimeout = 3000,
  requestTimeout = 30_000,
  retries = 5,
}: KeyedProducerOptions): KeyedProducer {
  const producer = new Producer({
    clientId,
    bootstrapBrokers: [...brokers],
    connectTimeout,
    timeout: requestTimeout,
    // The library raises retries of 0 or 1 to unlimited for an idempotent producer; a put needs a bounded wait.
    retries: Math.max(retries, 2),
    retryDelay: (_client, _operation, attempt) => Math.min(300 * 2 ** (attempt - 1), 3000),
    idempotent: true,
    acks: ProduceAcks.ALL,
    partitioner: compatibilityPartitioner,
    autocreateTopics: false,
    ...(tls ? { tls: tls.ca === undefined ? {} : { ca: [tls.ca] } } : {}),
    ...(sasl
      ? { sasl: { mechanism: saslMechanism(sasl.mechanism), username: sasl.username, password: sasl.password } }
      : {}),
  });
  const oneAtATime = pLimit(1);

  return {
    async send(topic, records, limits) {
      const written: WrittenAt[] = [];
      let inFlight: Promise<void> | undefined;
      try {
        for (const chunk of requestChunks(records, limits)) {
          if (inFlight) await inFlight;
          inFlight = oneAtATime(async () => {
            const result = await producer.send({ messages: chunk.map((r) => ({ topic, key: r.key, value: r.value })) });
            for (const o of result.offsets ?? [])
              written.push({ topic: o.topic, partition: o.partition, baseOffset: o.offset });
          });
        }
        if (inFlight) await inFlight;
      } catch (err) {
        // Encoding failed mid-way: the request already sent still settles, and must not become an unhandled rejection.
        await inFlight?.catch(() => undefined);
        throw err;
      }
      return written;
    },
    close: () => producer.close(),
  };
}

function saslMechanism(mechanism: NonNullable<Config['kafka']['sasl']>['mechanism']) {
  switch (mechanism) {
    case 'plain':
      return 'PLAIN' as const;
    case 'scram-sha-256':
      return 'SCRAM-SHA-256' as const;
    case 'scram-sha-512':
      return 'SCRAM-SHA-512' as const;
  }
}
