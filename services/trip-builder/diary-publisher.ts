import { diaryDocumentKey, toDiaryDocumentRecord } from '../../shared/events/index.js';
import type { KeyedProducer } from '../../shared/kafka/index.js';
import { valueSubject, type AvroCodec } from '../../shared/schema-registry/index.js';
import type { RebuildDeps } from './rebuild-user.js';

/** Sends server-to-phone documents to the diary topic (shared/events/diary-document.ts): a removal is a null. */
export function createDiaryPublisher(deps: {
  producer: KeyedProducer;
  codec: AvroCodec;
  topic: string;
}): RebuildDeps['publishDocument'] {
  return async (userId, key, data, writeTs) => {
    const value = await deps.codec.encode(valueSubject(deps.topic), toDiaryDocumentRecord(userId, key, data, writeTs));
    await deps.producer.send(deps.topic, [{ key: Buffer.from(diaryDocumentKey(userId, key)), value }]);
  };
}
