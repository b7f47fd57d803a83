/**
 * The timeseries topic's record (schemas/avro/timeseries-entry.avsc): a notice that the converter has converted and
 * stored an entry in Cassandra, keyed by user. Produced by the converter after the entry's rows are durable;
 * consumed by the trip builder, which rebuilds the user's trips from the stored timeseries (observations) or
 * re-renders the labelled days (user inputs). It names the entry and the times the trip builder routes by, not
 * its document: the trip builder reads documents from Cassandra anyway, and the converter then publishes a
 * hundred bytes per entry instead of the whole converted entry (about 700 for a location).
 */
export interface TimeseriesRecord {
  user_id: string;
  key: string;
  type: string;
  write_ts: number;
  /** `data.ts` when the entry has one (locations, motion, transitions). */
  data_ts: number | null;
  /** `data.start_ts` when the entry has one (labels, survey answers, notes). */
  start_ts: number | null;
  /**
   * The whole converted entry as JSON, in records written before the topic carried notices (a topic retained across
   * the upgrade still holds them); null in new ones.
   */
  entry_json: string | null;
}

/** The notice of a stored entry. */
export function toTimeseriesRecord(
  stored: { userId: string; key: string; type: string; writeTs: number; dataTs: number | null },
  startTs: number | null,
): TimeseriesRecord {
  return {
    user_id: stored.userId,
    key: stored.key,
    type: stored.type,
    write_ts: stored.writeTs,
    data_ts: stored.dataTs,
    start_ts: startTs,
    entry_json: null,
  };
}

/**
 * `data.start_ts` of the entry a record names (a label's, a survey answer's, a note's: where its trip or place is
 * looked for). Notices carry it; a record written before them (a retained topic replayed across the upgrade)
 * carries the whole entry instead.
 */
export function startTsOf(record: TimeseriesRecord): number | undefined {
  let start: unknown = record.start_ts;
  if ((start === null || start === undefined) && record.entry_json) {
    try {
      start = (JSON.parse(record.entry_json) as { data?: { start_ts?: unknown } } | null)?.data?.start_ts;
    } catch {
      return undefined; // the converter only ever wrote JSON there
    }
  }
  return typeof start === 'number' && Number.isFinite(start) ? start : undefined;
}
