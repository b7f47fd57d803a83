/**
 * The timeseries topic's record (schemas/avro/timeseries-entry.avsc): an entry the converter has converted and
 * stored in Cassandra, keyed by user. Produced by the converter after the entry's rows are durable; consumed by
 * the trip builder, which rebuilds the user's trips from the stored timeseries (observations) or re-renders the
 * labelled days (user inputs).
 */
export interface TimeseriesRecord {
  user_id: string;
  key: string;
  type: string;
  write_ts: number;
  /** `data.ts` when the entry has one (locations, motion, transitions). */
  data_ts: number | null;
  /** The whole converted entry `{_id, user_id, metadata, data}` as JSON. */
  entry_json: string;
}

/** The record of a stored entry. */
export function toTimeseriesRecord(stored: {
  userId: string;
  key: string;
  type: string;
  writeTs: number;
  dataTs: number | null;
  entryJson: string;
}): TimeseriesRecord {
  return {
    user_id: stored.userId,
    key: stored.key,
    type: stored.type,
    write_ts: stored.writeTs,
    data_ts: stored.dataTs,
    entry_json: stored.entryJson,
  };
}
