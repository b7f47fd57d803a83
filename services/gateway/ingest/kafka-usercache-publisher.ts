import type { Message, Producer, RecordMetadata } from 'kafkajs';
import { DependencyUnavailableError } from '../../../shared/errors/index.js';
import { valueSubject, type AvroCodec } from '../../../shared/schema-registry/index.js';
import { toUsercacheRecord, type UsercacheEntry } from '../../../shared/events/index.js';

export interface UsercachePublisher {
  /** Resolves only once Kafka acknowledged every entry on all in-sync replicas. */
  publish(userId: string, entries: readonly UsercacheEntry[]): Promise<RecordMetadata[]>;
}

export interface PublisherDeps {
  producer: Producer;
  codec: AvroCodec;
  topic: string;
  /** Milliseconds a put waits for Kafka before answering 503 (config `kafka.ack_timeout_ms`). @defaultValue 60000 */
  sendTimeoutMs?: number;
}

/** Bytes of record values per produce request: well under the topic's max.message.bytes (4 MiB). */
const CHUNK_BYTES = 1024 * 1024;

function isInfrastructureError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return err.name.startsWith('KafkaJS') || /ECONNREFUSED|ECONNRESET|ETIMEDOUT|fetch failed|socket/i.test(err.message);
}

/**
 * Publishes accepted entries to the usercache topic, keyed by the user's UUID so one user's entries keep their
 * order on one partition. The producer is idempotent with acks=all: a retry inside kafkajs never doubles a
 * record, and a 200 is only answered after the broker has the whole batch.
 */
export function createUsercachePublisher({
  producer,
  codec,
  topic,
  sendTimeoutMs = 60_000,
}: PublisherDeps): UsercachePublisher {
  const subject = valueSubject(topic);
  let connected: Promise<void> | undefined;
  producer.on(producer.events.DISCONNECT, () => {
    connected = undefined;
  });

  async function ensureConnected(): Promise<void> {
    connected ??= producer.connect().catch((err: unknown) => {
      connected = undefined;
      throw err;
    });
    await connected;
  }

  return {
    async publish(userId, entries) {
      if (entries.length === 0) return [];
      const receivedTs = Date.now() / 1000;
      let timer: NodeJS.Timeout | undefined;
      try {
        const work = (async () => {
          await ensureConnected();
          const encode = await codec.encoderFor(subject);
          // Chunks of at most CHUNK_BYTES go one after the other (one request of this put in flight keeps the
          // idempotent producer's sequence simple); each chunk is encoded while the previous one is on the wire.
          const acks: RecordMetadata[] = [];
          let inFlight: Promise<RecordMetadata[]> | undefined;
          let chunk: Message[] = [];
          let bytes = 0;
          const flush = async () => {
            if (inFlight) acks.push(...(await inFlight));
            inFlight = producer.send({ topic, acks: -1, messages: chunk, timeout: sendTimeoutMs });
            chunk = [];
            bytes = 0;
          };
          for (const e of entries) {
            const value = encode(toUsercacheRecord(userId, e, receivedTs));
            if (bytes + value.length > CHUNK_BYTES && chunk.length > 0) await flush();
            chunk.push({ key: userId, value });
            bytes += value.length;
          }
          await flush();
          acks.push(...(await (inFlight as Promise<RecordMetadata[]>)));
          return acks;
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
        if (isInfrastructureError(err))
          throw new DependencyUnavailableError('Kafka or the schema registry is unavailable', { cause: err });
        throw err;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
