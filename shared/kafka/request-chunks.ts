/**
 * Bytes of record values per produce request; well under the topics' max.message.bytes (4 MiB). A user's records all
 * go to one partition, in one record batch of a request, so a 10,000-entry put (6-7 MB) must be cut.
 */
const DEFAULT_MAX_CHUNK_BYTES = 1024 * 1024;
/**
 * Records per produce request: a request is encoded whole before it is sent, so a bound on its records bounds the
 * memory and the pause of encoding it, and lets the next request be encoded while this one is on the wire.
 */
const DEFAULT_MAX_CHUNK_MESSAGES = 1000;

export interface ChunkLimits {
  /** Bytes of values a request holds; a larger message goes alone. @defaultValue 1 MiB */
  maxChunkBytes?: number;
  /** Messages a request holds. @defaultValue 1000 */
  maxChunkMessages?: number;
}

/** Records cut, in order, into the requests they are sent in (see the limits), pulling `messages` as it goes. */
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
