import type { Message, Producer, RecordMetadata } from 'kafkajs';

/** Bytes of message values per produce request; well under the topics' max.message.bytes (4 MiB). */
const DEFAULT_MAX_CHUNK_BYTES = 1024 * 1024;

/**
 * Sends messages in requests of at most `maxChunkBytes` of values. kafkajs puts all messages for one partition
 * into one record batch, and a user's entries all go to one partition, so a 10,000-entry put (6-7 MB) would
 * exceed the broker's limit in one request. Chunks go in order, one request in flight (which keeps the idempotent
 * producer's sequence simple); `messages` may be a lazy iterable (a generator that encodes), and then the next
 * chunk is encoded while the previous one is on the wire.
 */
export async function sendChunked(
  producer: Producer,
  topic: string,
  messages: Iterable<Message>,
  options: { timeout?: number; maxChunkBytes?: number } = {},
): Promise<RecordMetadata[]> {
  const max = options.maxChunkBytes ?? DEFAULT_MAX_CHUNK_BYTES;
  const results: RecordMetadata[] = [];
  let inFlight: Promise<RecordMetadata[]> | undefined;
  let chunk: Message[] = [];
  let bytes = 0;
  const flush = async () => {
    if (inFlight) results.push(...(await inFlight));
    inFlight = undefined;
    if (chunk.length === 0) return;
    inFlight = producer.send({
      topic,
      acks: -1,
      messages: chunk,
      ...(options.timeout ? { timeout: options.timeout } : {}),
    });
    chunk = [];
    bytes = 0;
  };
  try {
    for (const m of messages) {
      const size = (m.value as Buffer | null)?.length ?? 0;
      if (bytes + size > max && chunk.length > 0) await flush();
      chunk.push(m);
      bytes += size;
    }
    await flush();
    await flush();
  } catch (err) {
    // Encoding failed mid-way: the request already sent still settles, and must not become an unhandled rejection.
    await inFlight?.catch(() => undefined);
    throw err;
  }
  return results;
}
