import {
  checkEntry,
  MAX_ENTRY_BYTES,
  PutRejection,
  sizeRejection,
  type UsercacheRecord,
} from '../../../shared/events/index.js';
import type { PutEntryTexts } from './put-layout.js';

/**
 * The records of a put whose entries arrive as text (domain/put-layout.ts), parsed and checked one at a time so
 * that no object graph of the whole put exists: the same checks, the same records as acceptPutEntries then
 * toRecordsWithin (shared/events/usercache-put-rules.ts), and all of them before anything is published. An entry the gateway leaves as it is keeps the
 * phone's own text for its metadata and data; one it changes (milliseconds, a missing type) is written anew.
 */
export function recordsFromTexts(
  userId: string,
  texts: PutEntryTexts,
  receivedTs: number,
  maxEntries: number,
  maxEntryBytes = MAX_ENTRY_BYTES,
): UsercacheRecord[] | PutRejection {
  if (texts.count > maxEntries) {
    return new PutRejection(`phone_to_server holds ${texts.count} entries; at most ${maxEntries} per call`, null);
  }
  const records: UsercacheRecord[] = [];
  // A malformed entry anywhere is a 400 before any entry's size is a 413, as when the put is parsed whole.
  let tooLarge: PutRejection | null = null;
  for (let i = 0; i < texts.count; i += 1) {
    let raw: unknown;
    try {
      raw = JSON.parse(texts.element(i));
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      return new PutRejection(`request body is not valid JSON: phone_to_server[${i}]: ${why}`, i);
    }
    const entry = checkEntry(raw, i);
    if (entry instanceof PutRejection) return entry;
    const sent = raw as { metadata: unknown; data: unknown };
    const record: UsercacheRecord = {
      user_id: userId,
      key: entry.key,
      type: entry.type,
      write_ts: entry.writeTs,
      platform: entry.platform,
      received_ts: receivedTs,
      metadata_json: (entry.metadata === sent.metadata && texts.metadata(i)) || JSON.stringify(entry.metadata),
      data_json: (entry.data === sent.data && texts.data(i)) || JSON.stringify(entry.data),
    };
    tooLarge ??= sizeRejection(record, i, maxEntryBytes);
    if (!tooLarge) records.push(record);
  }
  return tooLarge ?? records;
}
