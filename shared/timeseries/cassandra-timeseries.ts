import type { Cql, Statement } from '../cassandra/index.js';

/** A timeseries entry as stored: its identity, its times, and the whole document as JSON. */
export interface StoredEntry {
  userId: string;
  key: string;
  type: string;
  writeTs: number;
  dataTs: number | null;
  oid: string;
  /** The full entry `{_id, user_id, metadata, data}` as JSON. */
  entryJson: string;
}

export type TimeKey = 'metadata.write_ts' | 'data.ts';

const SECONDS_PER_DAY = 86_400;

/** The partition bucket of a timestamp: its UTC day number. See schemas/cql/002-timeseries.cql for why. */
export function dayOf(ts: number): number {
  return Math.floor(ts / SECONDS_PER_DAY);
}

/** One row to upsert, with the table and partition it lands in (writers group rows by partition). */
export interface RowWrite {
  table: 'timeseries' | 'timeseries_days' | 'timeseries_by_data_ts';
  partition: string;
  statement: Statement;
}

/** The rows that upsert one entry. All are keyed by the entry's identity, so replays rewrite the same rows. */
export function upsertStatements(e: StoredEntry): RowWrite[] {
  const day = dayOf(e.writeTs);
  const rows: RowWrite[] = [
    {
      table: 'timeseries',
      partition: `${e.userId}|${e.key}|${day}`,
      statement: {
        query:
          'INSERT INTO timeseries (user_id, key, day, write_ts, type, data_ts, oid, entry) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        params: [e.userId, e.key, day, e.writeTs, e.type, e.dataTs, e.oid, e.entryJson],
      },
    },
    {
      table: 'timeseries_days',
      partition: e.userId,
      statement: {
        query: 'INSERT INTO timeseries_days (user_id, key, day) VALUES (?, ?, ?)',
        params: [e.userId, e.key, day],
      },
    },
  ];
  if (e.dataTs !== null) {
    const dataDay = dayOf(e.dataTs);
    rows.push(
      {
        table: 'timeseries_by_data_ts',
        partition: `${e.userId}|${e.key}|${dataDay}`,
        statement: {
          query:
            'INSERT INTO timeseries_by_data_ts (user_id, key, day, data_ts, write_ts, type, entry) VALUES (?, ?, ?, ?, ?, ?, ?)',
          params: [e.userId, e.key, dataDay, e.dataTs, e.writeTs, e.type, e.entryJson],
        },
      },
      {
        table: 'timeseries_days',
        partition: e.userId,
        statement: {
          query: 'INSERT INTO timeseries_days (user_id, key, day) VALUES (?, ?, ?)',
          params: [e.userId, `#data.ts#${e.key}`, dataDay],
        },
      },
    );
  }
  return rows;
}

export interface TimeseriesReader {
  /** Entries of one user, for the given keys (all keys when null), with `timeKey` in [start, end], sorted by it. */
  find(userId: string, keys: readonly string[] | null, timeKey: TimeKey, start: number, end: number): Promise<string[]>;
  /** How many entries of each key a user has (operator tooling and tests). */
  countByKey(userId: string): Promise<Record<string, number>>;
}

export function createTimeseriesReader(cql: Cql): TimeseriesReader {
  async function partitions(
    userId: string,
    keys: readonly string[] | null,
    timeKey: TimeKey,
    start: number,
    end: number,
  ) {
    const rs = await cql.read('SELECT key, day FROM timeseries_days WHERE user_id = ?', [userId]);
    const prefix = timeKey === 'data.ts' ? '#data.ts#' : '';
    const wanted = keys ? new Set(keys.map((k) => prefix + k)) : null;
    return rs.rows
      .map((r) => ({ key: String(r['key']), day: Number(r['day']) }))
      .filter((p) => (wanted ? wanted.has(p.key) : p.key.startsWith('#') === (prefix !== '')))
      .filter((p) => p.day >= dayOf(start) && p.day <= dayOf(end))
      .map((p) => ({ key: p.key.slice(prefix.length), day: p.day }));
  }

  return {
    async find(userId, keys, timeKey, start, end) {
      const parts = await partitions(userId, keys, timeKey, start, end);
      const query =
        timeKey === 'data.ts'
          ? 'SELECT data_ts AS t, entry FROM timeseries_by_data_ts WHERE user_id = ? AND key = ? AND day = ? AND data_ts >= ? AND data_ts <= ?'
          : 'SELECT write_ts AS t, entry FROM timeseries WHERE user_id = ? AND key = ? AND day = ? AND write_ts >= ? AND write_ts <= ?';
      const found: { t: number; entry: string }[] = [];
      await Promise.all(
        parts.map(async (p) => {
          for await (const row of cql.iterate(query, [userId, p.key, p.day, start, end], 5000)) {
            found.push({ t: Number(row['t']), entry: String(row['entry']) });
          }
        }),
      );
      return found.sort((a, b) => a.t - b.t).map((f) => f.entry);
    },
    async countByKey(userId) {
      const parts = await partitions(userId, null, 'metadata.write_ts', 0, Number.MAX_SAFE_INTEGER);
      const counts: Record<string, number> = {};
      for (const p of parts) {
        const rs = await cql.read('SELECT COUNT(*) AS n FROM timeseries WHERE user_id = ? AND key = ? AND day = ?', [
          userId,
          p.key,
          p.day,
        ]);
        counts[p.key] = (counts[p.key] ?? 0) + Number(rs.rows[0]?.['n'] ?? 0);
      }
      return counts;
    },
  };
}
