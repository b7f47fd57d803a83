/**
 * The diary topic's record (schemas/avro/diary-document.avsc): a server-to-phone document (`diary/trips-<date>`),
 * on a compacted topic keyed by user and document key (diaryDocumentKey), so compaction keeps the latest of each;
 * a removed document has a null `data_json`. Produced by the trip builder each time it rewrites a user's usercache
 * documents. No service here consumes it: the gateway serves the documents from Cassandra; the topic is the feed
 * for other consumers (a push notifier, an export).
 */
export interface DiaryDocumentRecord {
  user_id: string;
  key: string;
  write_ts: number;
  data_json: string | null;
}

export function toDiaryDocumentRecord(
  userId: string,
  key: string,
  data: unknown[] | null,
  writeTs: number,
): DiaryDocumentRecord {
  return { user_id: userId, key, write_ts: writeTs, data_json: data === null ? null : JSON.stringify(data) };
}

/** The Kafka key of a document's record: one per user and document, which compaction keeps the latest of. */
export function diaryDocumentKey(userId: string, key: string): string {
  return `${userId}|${key}`;
}
