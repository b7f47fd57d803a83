import { compatibilityPartitioner, ProduceAcks, Producer, type MessageToProduce } from '@platformatic/kafka';
import pLimit from 'p-limit';
import type { Config } from '../config/index.js';
import { requestChunks, type ChunkLimits } from './request-chunks.js';

/** A record as the producer sends it: already encoded, keyed by whose it is. */
export interface KeyedRecord {
  key: Buffer;
  /** The encoded value; null is a tombstone (a compacted topic then drops every earlier record of the key). */
  value: Buffer | null;
  /** Headers, as bytes (a replayed dead letter's mark, say). */
  headers?: Record<string, Buffer>;
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
 * The project's one producer (the gateway's puts, the workers' notices and documents, replays, deletions' tombstones),
 * on @platformatic/kafka with the project's settings: idempotent with acks=all, and Java's (and kafkajs')
 * partitioner, so a user's records land on the partition every other client, a Java one included, picks for that
 * user. The library's own default partitioner (`murmur2 >>> 0`) agrees with it only for a power-of-two number of
 * partitions.
 *
 * Requests go one at a time. An idempotent producer numbers each partition's records; a request that failed may
 * still have been written (its answer lost with a killed broker, or one partition written and another refused), and
 * a later request that reused its numbers would be taken by the broker for a duplicate and acknowledged unwritten.
 * After a failed request the library drops its producer id and numbers and starts afresh, so that cannot happen
 * (keyed-producer.int.test.ts sends after a half-refused request; the cluster suite kills brokers under puts). One
 * request at a time keeps a failed request's own retries the next to use its numbers.
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
            const result = await producer.send({ messages: chunk.map((r) => toMessage(topic, r)) });
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

/** The library's message: header names as bytes too (with no serializer configured, a string name is not encoded). */
function toMessage(topic: string, { key, value, headers }: KeyedRecord): MessageToProduce<Buffer, Buffer> {
  // The library types a value as optional, but it checks that one is given and writes null as a record of no value,
  // which is what a tombstone is.
  const message = { topic, key, value: value as Buffer };
  if (!headers) return message;
  return { ...message, headers: new Map(Object.entries(headers).map(([name, v]) => [Buffer.from(name), v])) };
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
