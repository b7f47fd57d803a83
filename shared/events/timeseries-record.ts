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
   * The whole converted entry as JSON: in every record written before the topic carried notices, and since then in
   * the notices of people's inputs (`manual/*` keys: a handful a day, under a kilobyte each), so that a trip builder
   * of a release before notices (mid-upgrade, or after a rollback) still routes them. Null for observations.
   */
  entry_json: string | null;
}

/** Keys of people's inputs (labels, survey answers, notes): their notices carry the entry too (see entry_json). */
const INPUT_KEY_PREFIX = 'manual/';

/** The notice of a stored entry. */
export function toTimeseriesRecord(
  stored: { userId: string; key: string; type: string; writeTs: number; dataTs: number | null; entryJson: string },
  startTs: number | null,
): TimeseriesRecord {
  return {
    user_id: stored.userId,
    key: stored.key,
    type: stored.type,
    write_ts: stored.writeTs,
    data_ts: stored.dataTs,
    start_ts: startTs,
    entry_json: stored.key.startsWith(INPUT_KEY_PREFIX) ? stored.entryJson : null,
  };
}

/**
 * `data.start_ts` of the entry a record names (a label's, a survey answer's, a note's: where its trip or place is
 * looked for). Notices carry it; a record written before them carries the whole entry instead.
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
