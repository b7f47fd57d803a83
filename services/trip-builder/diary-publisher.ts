import { diaryDocumentKey, toDiaryDocumentRecord } from '../../shared/events/index.js';
import type { Producer } from 'kafkajs';
import { valueSubject, type AvroCodec } from '../../shared/schema-registry/index.js';
import type { RebuildDeps } from './rebuild-user.js';

/** Sends server-to-phone documents to the diary topic (shared/events/diary-document.ts): a removal is a null. */
export function createDiaryPublisher(deps: {
  producer: Producer;
  codec: AvroCodec;
  topic: string;
}): RebuildDeps['publishDocument'] {
  return async (userId, key, data, writeTs) => {
    const value = await deps.codec.encode(valueSubject(deps.topic), toDiaryDocumentRecord(userId, key, data, writeTs));
    await deps.producer.send({
      topic: deps.topic,
      acks: -1,
      messages: [{ key: diaryDocumentKey(userId, key), value }],
    });
  };
}
