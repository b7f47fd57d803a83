import type { Cql } from '../cassandra/index.js';
import { type DeadLetter, TRIP_BUILDER_ERROR_KEY, UNDECODABLE_KEY } from '../events/dead-letter.js';

export type { DeadLetter } from '../events/dead-letter.js';
export { TRIP_BUILDER_ERROR_KEY } from '../events/dead-letter.js';

/**
 * How the reason of a dead letter stored without its payload begins (store-dead-letter.ts writes it when Cassandra
 * refuses the whole letter). Its metadata and data are then a placeholder, not the entry, so replaying it would
 * send that placeholder through the converter. The reason is the marker because only the workers write it (it
 * never starts with client text) and it needs no new column.
 */
export const PAYLOAD_OMITTED_REASON = 'payload omitted: ';

/** True when the letter was stored without its payload (see PAYLOAD_OMITTED_REASON). */
export function isPayloadOmitted(letter: Pick<DeadLetter, 'reason'>): boolean {
  return letter.reason.startsWith(PAYLOAD_OMITTED_REASON);
}

/**
 * Whether fix-usercache-processing can send the letter through the converter again: only a phone entry kept whole.
 * Not an undecodable record, a failed trip rebuild (no entry), or a letter stored without its payload.
 */
export function isReplayable(letter: Pick<DeadLetter, 'key' | 'reason'>): boolean {
  return letter.key !== UNDECODABLE_KEY && letter.key !== TRIP_BUILDER_ERROR_KEY && !isPayloadOmitted(letter);
}

/** Rows per page when reading dead letters: each can hold an entry of up to 4 MiB, so pages stay small. */
const LETTERS_PER_PAGE = 50;

export interface ErrorTimeseries {
  insert(letter: DeadLetter): Promise<void>;
  remove(userId: string, key: string, writeTs: number, type: string): Promise<void>;
  /** Every dead letter, streamed page by page (LETTERS_PER_PAGE rows in memory at a time). */
  all(): AsyncGenerator<DeadLetter>;
  countByKey(): Promise<Record<string, number>>;
  /**
   * Counts by key and reason, and by user, reading only those columns of at most `maxRows` rows (the operators'
   * console; `truncated` when there were more). A reason is grouped on its first line, cut to 160 characters.
   */
  tally(maxRows: number): Promise<DeadLetterTally>;
  /** Every dead letter's identity and reason, without its payload: what a filter reads before fetching matches. */
  refs(): AsyncGenerator<DeadLetterRef>;
  /** One dead letter by its identity. */
  get(userId: string, key: string, writeTs: number, type: string): Promise<DeadLetter | undefined>;
  /** Every dead letter of the user (account deletion). */
  removeUser(userId: string): Promise<void>;
}

export interface DeadLetterTally {
  total: number;
  truncated: boolean;
  groups: { key: string; reason: string; count: number }[];
  byUser: Map<string, number>;
}

/** The part of a reason that names the failure, without the entry-specific rest (positions, values). */
export function reasonGroup(reason: string): string {
  return (reason.split('\n', 1)[0] ?? '').slice(0, 160);
}

type DeadLetterRef = Pick<DeadLetter, 'user_id' | 'key' | 'write_ts' | 'type' | 'reason'>;
const REF_COLUMNS = 'user_id, key, write_ts, type, reason';
const LETTER_COLUMNS = `${REF_COLUMNS}, source_topic, source_partition, source_offset, failed_ts, metadata, data`;

function toRef(r: Record<string, unknown>): DeadLetterRef {
  return {
    user_id: String(r['user_id']),
    key: String(r['key']),
    write_ts: Number(r['write_ts']),
    type: String(r['type']),
    reason: String(r['reason']),
  };
}

function toLetter(r: Record<string, unknown>): DeadLetter {
  return {
    ...toRef(r),
    source_topic: String(r['source_topic']),
    source_partition: Number(r['source_partition']),
    source_offset: Number(r['source_offset']),
    failed_ts: Number(r['failed_ts']),
    metadata_json: String(r['metadata']),
    data_json: String(r['data']),
  };
}

export function createErrorTimeseries(cql: Cql): ErrorTimeseries {
  async function* all(): AsyncGenerator<DeadLetter> {
    for await (const r of cql.iterate(`SELECT ${LETTER_COLUMNS} FROM error_timeseries`, [], LETTERS_PER_PAGE))
      yield toLetter(r);
  }
  return {
    async removeUser(userId) {
      await cql.write('DELETE FROM error_timeseries WHERE user_id = ?', [userId]);
    },
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
    async *refs() {
      for await (const r of cql.iterate(`SELECT ${REF_COLUMNS} FROM error_timeseries`, [], 1000)) yield toRef(r);
    },
    async get(userId, key, writeTs, type) {
      const rs = await cql.read(
        `SELECT ${LETTER_COLUMNS} FROM error_timeseries WHERE user_id = ? AND key = ? AND write_ts = ? AND type = ?`,
        [userId, key, writeTs, type],
      );
      return rs.rows[0] ? toLetter(rs.rows[0]) : undefined;
    },
    async tally(maxRows) {
      const groups = new Map<string, { key: string; reason: string; count: number }>();
      const byUser = new Map<string, number>();
      let total = 0;
      for await (const r of cql.iterate('SELECT user_id, key, reason FROM error_timeseries', [], 5000)) {
        if (total >= maxRows) return { total, truncated: true, groups: [...groups.values()], byUser };
        total += 1;
        const key = String(r['key']);
        const reason = reasonGroup(String(r['reason']));
        const id = `${key}\u0000${reason}`;
        const group = groups.get(id) ?? groups.set(id, { key, reason, count: 0 }).get(id)!;
        group.count += 1;
        const user = String(r['user_id']);
        byUser.set(user, (byUser.get(user) ?? 0) + 1);
      }
      return { total, truncated: false, groups: [...groups.values()], byUser };
    },
    async countByKey() {
      // Keys only: the payloads are not read to count them. A Map, since a key may be `__proto__`.
      const counts = new Map<string, number>();
      for await (const r of cql.iterate('SELECT key FROM error_timeseries')) {
        const key = String(r['key']);
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      return Object.fromEntries(counts);
    },
  };
}
