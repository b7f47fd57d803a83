import { isOutage, recordRefusal } from '../../../shared/errors/classify.js';
import {
  ConfigError,
  DependencyUnavailableError,
  PayloadTooLargeError,
  ValidationError,
} from '../../../shared/errors/index.js';
import type { KeyedProducer, WrittenAt } from '../../../shared/kafka/index.js';
import { valueSubject, type AvroCodec } from '../../../shared/schema-registry/index.js';
import type { UsercacheRecord } from '../../../shared/events/index.js';

export interface UsercachePublisher {
  /** Resolves only once Kafka acknowledged every record on all in-sync replicas. */
  publish(userId: string, records: readonly UsercacheRecord[]): Promise<WrittenAt[]>;
}

export interface PublisherDeps {
  producer: KeyedProducer;
  codec: AvroCodec;
  topic: string;
  /** Milliseconds a put waits for Kafka before answering 503 (config `kafka.ack_timeout_ms`). @defaultValue 60000 */
  sendTimeoutMs?: number;
}

/**
 * Publishes accepted entries to the usercache topic, keyed by the user's UUID so one user's entries keep their
 * order on one partition. The producer is idempotent with acks=all: a retry inside the client never doubles a
 * record, and a 200 is only answered after the broker has the whole batch.
 */
export function createUsercachePublisher({
  producer,
  codec,
  topic,
  sendTimeoutMs = 60_000,
}: PublisherDeps): UsercachePublisher {
  const subject = valueSubject(topic);

  return {
    async publish(userId, records) {
      if (records.length === 0) return [];
      let timer: NodeJS.Timeout | undefined;
      try {
        const work = (async () => {
          const encode = await codec.encoderFor(subject);
          const key = Buffer.from(userId);
          // Lazy: each request's records are encoded while the previous request is on the wire.
          const messages = (function* () {
            for (const record of records) yield { key, value: encode(record) };
          })();
          return producer.send(topic, messages);
        })();
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new DependencyUnavailableError('Kafka did not acknowledge the entries in time')),
            sendTimeoutMs,
          );
        });
        return await Promise.race([work, timeout]);
      } catch (err) {
        if (err instanceof DependencyUnavailableError) throw err;
        if (isOutage(err))
          throw new DependencyUnavailableError('Kafka or the schema registry is unavailable', { cause: err });
        // Kafka refusing the records themselves is the client's to fix (fewer or smaller entries), not a retry
        // later: a 503 would have the phone resend the same batch for ever.
        const refusal = recordRefusal(err);
        if (refusal?.reason === 'too_large')
          throw new PayloadTooLargeError('Kafka refused the entries as too large; send fewer or smaller entries', {
            cause: err,
            details: { kafka_error: refusal.kafkaError },
          });
        if (refusal)
          throw new ValidationError(`Kafka refused the entries (${refusal.kafkaError})`, {
            cause: err,
            details: { kafka_error: refusal.kafkaError },
          });
        throw err;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * Several publishers as one, each user always on the same one. An idempotent producer has one request in flight
 * (shared/kafka/keyed-producer.ts), so with a single producer every put waits for the acknowledgements of the puts before it: a
 * few producers let puts of different users be acknowledged side by side, and a user's own puts stay in order.
 */
export function createPublisherPool(publishers: readonly UsercachePublisher[]): UsercachePublisher {
  if (publishers.length === 0) throw new ConfigError('a publisher pool needs at least one publisher');
  return {
    publish(userId, records) {
      let hash = 0;
      for (let i = 0; i < userId.length; i++) hash = (hash * 31 + userId.charCodeAt(i)) >>> 0;
      return publishers[hash % publishers.length]!.publish(userId, records);
    },
  };
}
