import type { Message, Producer, RecordMetadata } from 'kafkajs';

/** Bytes of message values per produce request; well under the topics' max.message.bytes (4 MiB). */
const DEFAULT_MAX_CHUNK_BYTES = 1024 * 1024;
/**
 * Messages per produce request. kafkajs groups a request's messages by partition by copying the partition's list
 * once per message (producer/groupMessagesPerPartition.js), quadratic in the messages of one partition: 10,000
 * small notices of one user cost it 50 million copies, a thousand cost it half a million.
 */
const DEFAULT_MAX_CHUNK_MESSAGES = 1000;

export interface ChunkLimits {
  /** Bytes of values a request holds; a larger message goes alone. @defaultValue 1 MiB */
  maxChunkBytes?: number;
  /** Messages a request holds. @defaultValue 1000 */
  maxChunkMessages?: number;
}

/** Messages cut, in order, into the requests they are sent in (see the limits), pulling `messages` as it goes. */
export function* requestChunks<M extends { value: Buffer | string | null }>(
  messages: Iterable<M>,
  { maxChunkBytes = DEFAULT_MAX_CHUNK_BYTES, maxChunkMessages = DEFAULT_MAX_CHUNK_MESSAGES }: ChunkLimits = {},
): Generator<M[]> {
  let chunk: M[] = [];
  let bytes = 0;
  for (const m of messages) {
    const size = m.value?.length ?? 0;
    if ((bytes + size > maxChunkBytes || chunk.length >= maxChunkMessages) && chunk.length > 0) {
      yield chunk;
      chunk = [];
      bytes = 0;
    }
    chunk.push(m);
    bytes += size;
  }
  if (chunk.length > 0) yield chunk;
}

/**
 * Sends messages in requests of at most `maxChunkBytes` of values and `maxChunkMessages` messages. kafkajs puts all
 * messages for one partition into one record batch, and a user's entries all go to one partition, so a 10,000-entry
 * put (6-7 MB) would exceed the broker's limit in one request. Chunks go in order, one request in flight (which keeps
 * the idempotent producer's sequence simple); `messages` may be a lazy iterable (a generator that encodes), and then
 * the next chunk is encoded while the previous one is on the wire.
 */
export async function sendChunked(
  producer: Producer,
  topic: string,
  messages: Iterable<Message>,
  options: { timeout?: number } & ChunkLimits = {},
): Promise<RecordMetadata[]> {
  const results: RecordMetadata[] = [];
  let inFlight: Promise<RecordMetadata[]> | undefined;
  try {
    // The next chunk is pulled (encoded) while the one before is on the wire; it is sent once that one is answered.
    for (const chunk of requestChunks(messages as Iterable<Message & { value: Buffer | string | null }>, options)) {
      if (inFlight) results.push(...(await inFlight));
      inFlight = producer.send({
        topic,
        acks: -1,
        messages: chunk,
        ...(options.timeout ? { timeout: options.timeout } : {}),
      });
    }
    if (inFlight) results.push(...(await inFlight));
  } catch (err) {
    // Encoding failed mid-way: the request already sent still settles, and must not become an unhandled rejection.
    await inFlight?.catch(() => undefined);
    throw err;
  }
  return results;
}
