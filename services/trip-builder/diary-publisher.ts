import type { Producer } from 'kafkajs';
import { valueSubject, type AvroCodec } from '../../shared/schema-registry/index.js';
import type { RebuildDeps } from './rebuild-user.js';

/**
 * Sends server-to-phone documents to the compacted diary topic, keyed by user and document key so compaction keeps
 * the latest of each; a removed document is a null `data_json`.
 */
export function createDiaryPublisher(deps: {
  producer: Producer;
  codec: AvroCodec;
  topic: string;
}): RebuildDeps['publishDocument'] {
  return async (userId, key, data, writeTs) => {
    const value = await deps.codec.encode(valueSubject(deps.topic), {
      user_id: userId,
      key,
      write_ts: writeTs,
      data_json: data === null ? null : JSON.stringify(data),
    });
    await deps.producer.send({ topic: deps.topic, acks: -1, messages: [{ key: `${userId}|${key}`, value }] });
  };
}
