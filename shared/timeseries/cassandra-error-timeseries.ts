import type { Cql } from '../cassandra/index.js';

/** A dead letter: an entry whose conversion failed, with why and where it came from. */
export interface DeadLetter {
  user_id: string;
  key: string;
  type: string;
  write_ts: number;
  reason: string;
  source_topic: string;
  source_partition: number;
  source_offset: number;
  failed_ts: number;
  metadata_json: string;
  data_json: string;
}

export interface ErrorTimeseries {
  insert(letter: DeadLetter): Promise<void>;
  remove(userId: string, key: string, writeTs: number, type: string): Promise<void>;
  /** Every dead letter, page by page (operator tooling: the table is small by nature). */
  all(): AsyncGenerator<DeadLetter>;
  countByKey(): Promise<Record<string, number>>;
}

export function createErrorTimeseries(cql: Cql): ErrorTimeseries {
  async function* all(): AsyncGenerator<DeadLetter> {
    for await (const r of cql.iterate(
      'SELECT user_id, key, write_ts, type, reason, source_topic, source_partition, source_offset, failed_ts, metadata, data FROM error_timeseries',
    )) {
      yield {
        user_id: String(r['user_id']),
        key: String(r['key']),
        type: String(r['type']),
        write_ts: Number(r['write_ts']),
        reason: String(r['reason']),
        source_topic: String(r['source_topic']),
        source_partition: Number(r['source_partition']),
        source_offset: Number(r['source_offset']),
        failed_ts: Number(r['failed_ts']),
        metadata_json: String(r['metadata']),
        data_json: String(r['data']),
      };
    }
  }
  return {
    async insert(l) {
      await cql.write(
        'INSERT INTO error_timeseries (user_id, key, write_ts, type, reason, source_topic, source_partition, source_offset, failed_ts, metadata, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [
          l.user_id,
          l.key,
          l.write_ts,
          l.type,
          l.reason,
          l.source_topic,
          l.source_partition,
          l.source_offset,
          l.failed_ts,
          l.metadata_json,
          l.data_json,
        ],
      );
    },
    async remove(userId, key, writeTs, type) {
      await cql.write('DELETE FROM error_timeseries WHERE user_id = ? AND key = ? AND write_ts = ? AND type = ?', [
        userId,
        key,
        writeTs,
        type,
      ]);
    },
    all,
    async countByKey() {
      const counts: Record<string, number> = {};
      for await (const l of all()) counts[l.key] = (counts[l.key] ?? 0) + 1;
      return counts;
    },
  };
}
