/**
 * An entry as a phone pushed it and the gateway accepted it: envelope checked, timestamps in seconds, payload
 * not yet judged. What the gateway publishes and the converter reads.
 */
export interface UsercacheEntry {
  key: string;
  type: string;
  writeTs: number;
  platform: string | null;
  metadata: Record<string, unknown>;
  data: Record<string, unknown>;
}

/** The Avro value of the usercache topic (schemas/avro/usercache-entry.avsc). */
export interface UsercacheRecord {
  user_id: string;
  key: string;
  type: string;
  write_ts: number;
  platform: string | null;
  received_ts: number;
  metadata_json: string;
  data_json: string;
}

export function toUsercacheRecord(userId: string, e: UsercacheEntry, receivedTs: number): UsercacheRecord {
  return {
    user_id: userId,
    key: e.key,
    type: e.type,
    write_ts: e.writeTs,
    platform: e.platform,
    received_ts: receivedTs,
    metadata_json: JSON.stringify(e.metadata),
    data_json: JSON.stringify(e.data),
  };
}
