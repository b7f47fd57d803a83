import pLimit from 'p-limit';
import { type Cql, ROWS_PER_TURN, type Statement, yieldToEventLoop } from '../cassandra/index.js';
import { ValidationError } from '../errors/index.js';
import { forEachBounded } from '../runtime/for-each-bounded.js';

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

/** One row to upsert, with the partition it lands in (writers group rows by partition). */
export interface RowWrite {
  /** The table and partition key: rows of one group can go in one unlogged batch. */
  group: string;
  /**
   * A row of the per-user index of days with data, which every entry of a day repeats: a writer of many entries
   * sends it once.
   */
  dayIndex: boolean;
  statement: Statement;
}

/** The rows that upsert one entry. All are keyed by the entry's identity, so replays rewrite the same rows. */
export function upsertStatements(e: StoredEntry): RowWrite[] {
  const day = dayOf(e.writeTs);
  const dayIndexRow = (key: string, d: number): RowWrite => ({
    group: `timeseries_days|${e.userId}`,
    dayIndex: true,
    statement: {
      query: 'INSERT INTO timeseries_days (user_id, key, day) VALUES (?, ?, ?)',
      params: [e.userId, key, d],
    },
  });
  const rows: RowWrite[] = [
    {
      group: `timeseries|${e.userId}|${e.key}|${day}`,
      dayIndex: false,
      statement: {
        query:
          'INSERT INTO timeseries (user_id, key, day, write_ts, type, data_ts, oid, entry) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        params: [e.userId, e.key, day, e.writeTs, e.type, e.dataTs, e.oid, e.entryJson],
      },
    },
    dayIndexRow(e.key, day),
  ];
  if (e.dataTs !== null) {
    const dataDay = dayOf(e.dataTs);
    rows.push(
      {
        // The data.ts ordering holds where the entry is, not the entry: its JSON is written (and compacted) once.
        group: `timeseries_by_data_ts|${e.userId}|${e.key}|${dataDay}`,
        dayIndex: false,
        statement: {
          query:
            'INSERT INTO timeseries_by_data_ts (user_id, key, day, data_ts, write_ts, type) VALUES (?, ?, ?, ?, ?, ?)',
          params: [e.userId, e.key, dataDay, e.dataTs, e.writeTs, e.type],
        },
      },
      dayIndexRow(`#data.ts#${e.key}`, dataDay),
    );
  }
  return rows;
}

export interface FindOptions {
  /**
   * Most entries returned: the earliest, or with `newestFirst` the latest, in ascending time order either way.
   * Reading stops once they are found, so a long range costs what it returns, not what it holds.
   */
  limit?: number;
  newestFirst?: boolean;
  /** (key, day) partitions a call may touch; beyond, a ValidationError naming the limit. @defaultValue no limit */
  maxPartitions?: number;
  /** Partition reads in flight at once. @defaultValue 4 */
  concurrency?: number;
  /**
   * UTF-8 bytes of entries a call may hold: reading stops, with the ValidationError of `entriesTooLarge`, as soon
   * as the entries found exceed it. A count limit alone lets 100,000 entries of 1.5 MiB each into memory.
   * @defaultValue no limit
   */
  maxBytes?: number;
}

/** A stored entry's JSON and its value of the time key it was read by (stored in its row: no parsing needed). */
export interface TimedEntry {
  ts: number;
  json: string;
}

/** The refusal of an answer past `maxBytes`: a 400 naming the limit, in MB as `webserver.find_entries_max_mb`. */
export function entriesTooLarge(maxBytes: number): ValidationError {
  const mb = Math.round((maxBytes / 1024 / 1024) * 1000) / 1000;
  return new ValidationError(
    `the matching entries hold more than ${mb} MB, the most one call returns; ask a shorter range or fewer keys, or max_entries with trunc_method first or last`,
    { details: { limit_mb: mb } },
  );
}

/** Which entries a read asks for: one user's, of the given keys (all keys when null), with `timeKey` in [start, end]. */
export type FindArgs = [
  userId: string,
  keys: readonly string[] | null,
  timeKey: TimeKey,
  start: number,
  end: number,
  options?: FindOptions,
];

export interface TimeseriesReader {
  /** The entries asked for, sorted by `timeKey`, as JSON. */
  find(...args: FindArgs): Promise<string[]>;
  /** As `find`, each entry with its time (`timeKey`'s value), for callers that merge entries of several sources. */
  findTimed(...args: FindArgs): Promise<TimedEntry[]>;
  /** How many entries of each key a user has (operator tooling and tests). */
  countByKey(userId: string): Promise<Record<string, number>>;
  /**
   * Every entry the user wrote on the UTC days `fromDay` to `toDay` (day numbers, both included), as JSON, for an
   * export: partition by partition in (day, key) order, each in write order, a page of `pageSize` rows at a time.
   * Nothing is collected (but the list of partitions), so a reader that stops pulling holds one page.
   */
  rawEntries(userId: string, fromDay: number, toDay: number, options?: { pageSize?: number }): AsyncGenerator<string>;
}

/** Day numbers are CQL ints; callers may pass "end of time" bounds far beyond them. */
const clampDay = (day: number) => Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, day));

interface Row {
  t: number;
  entry: string;
}

/** One partition being merged: its next row, and the rest. */
interface Cursor {
  rows: AsyncGenerator<Row, void>;
  head: Row;
}

/** Where the data.ts ordering says an entry is: its data.ts, and its row in the write ordering. */
interface EntryPlace {
  dataTs: number;
  writeTs: number;
  type: string;
}

/** write_ts values one request looks up; a page of the data.ts ordering takes a few. */
const LOOKUPS_PER_REQUEST = 500;
/** Lookup requests of one page in flight at once (a page of backfilled data may span many write days). */
const LOOKUPS_IN_FLIGHT = 4;

/**
 * The entries at `places` (one key's), in their order, each with its data.ts: read from the write ordering, a
 * request per write day and a few hundred write times, `type` told apart here. A place yields nothing when its
 * entry is gone (deleted between the two reads) or has since been written again with another data.ts (the same
 * identity pushed again: the write ordering holds the newer, whose own place leads to it).
 */
async function entriesAt(cql: Cql, userId: string, key: string, places: readonly EntryPlace[]): Promise<Row[]> {
  const timesByDay = new Map<number, Set<number>>();
  for (const { writeTs } of places) {
    const day = dayOf(writeTs);
    const times = timesByDay.get(day);
    if (times) times.add(writeTs);
    else timesByDay.set(day, new Set([writeTs]));
  }
  const requests: [day: number, times: number[]][] = [];
  for (const [day, times] of timesByDay) {
    const all = [...times];
    for (let i = 0; i < all.length; i += LOOKUPS_PER_REQUEST)
      requests.push([day, all.slice(i, i + LOOKUPS_PER_REQUEST)]);
  }
  const found = new Map<string, { dataTs: number | null; entry: string }>();
  // Not through the reader's own limiter: its caller holds one of those slots while it waits for these.
  await forEachBounded(requests, LOOKUPS_IN_FLIGHT, async ([day, times]) => {
    for await (const r of cql.iterate(
      'SELECT write_ts, type, data_ts, entry FROM timeseries WHERE user_id = ? AND key = ? AND day = ? AND write_ts IN ?',
      [userId, key, day, times],
      LOOKUPS_PER_REQUEST,
    )) {
      const dataTs = r['data_ts'];
      found.set(`${Number(r['write_ts'])}|${String(r['type'])}`, {
        dataTs: dataTs === null ? null : Number(dataTs),
        entry: String(r['entry']),
      });
    }
  });
  const rows: Row[] = [];
  for (const place of places) {
    const at = found.get(`${place.writeTs}|${place.type}`);
    if (at !== undefined && at.dataTs === place.dataTs) rows.push({ t: place.dataTs, entry: at.entry });
  }
  return rows;
}

export function createTimeseriesReader(cql: Cql): TimeseriesReader {
  /** The days holding data of the wanted keys in [start, end], each with its keys, in day order. */
  async function partitions(
    userId: string,
    keys: readonly string[] | null,
    timeKey: TimeKey,
    start: number,
    end: number,
    maxPartitions = Infinity,
  ): Promise<Map<number, string[]>> {
    const prefix = timeKey === 'data.ts' ? '#data.ts#' : '';
    const [fromDay, toDay] = [clampDay(dayOf(start)), clampDay(dayOf(end))];
    const byDay = new Map<number, string[]>();
    let count = 0;
    const add = (key: string, day: number) => {
      if (++count > maxPartitions) {
        throw new ValidationError(
          `the range touches more than ${maxPartitions} days of data; ask a shorter range or fewer keys`,
          { details: { limit_partitions: maxPartitions } },
        );
      }
      const list = byDay.get(day);
      if (list) list.push(key);
      else byDay.set(day, [key]);
    };
    if (keys) {
      // (key, day) is the clustering order: each key's days in range are one slice of the user's partition, and
      // one request reads the slices of every key (a label's render asks for seven keys).
      for await (const r of cql.iterate(
        'SELECT key, day FROM timeseries_days WHERE user_id = ? AND key IN ? AND day >= ? AND day <= ?',
        [userId, [...new Set(keys)].map((key) => prefix + key), fromDay, toDay],
        5000,
      )) {
        add(String(r['key']).slice(prefix.length), Number(r['day']));
      }
    } else {
      for await (const r of cql.iterate('SELECT key, day FROM timeseries_days WHERE user_id = ?', [userId], 5000)) {
        const key = String(r['key']);
        const day = Number(r['day']);
        if (key.startsWith('#') !== (prefix !== '') || (prefix && !key.startsWith(prefix))) continue;
        if (day >= fromDay && day <= toDay) add(key.slice(prefix.length), day);
      }
    }
    if (keys) {
      // Entries of equal times merge in the order the keys were asked in, as they did when read key by key.
      const rank = new Map([...new Set(keys)].map((key, i) => [key, i]));
      for (const list of byDay.values()) list.sort((a, b) => rank.get(a)! - rank.get(b)!);
    }
    return new Map([...byDay.entries()].sort(([a], [b]) => a - b));
  }

  async function findTimed(
    userId: string,
    keys: readonly string[] | null,
    timeKey: TimeKey,
    start: number,
    end: number,
    options: FindOptions = {},
  ): Promise<TimedEntry[]> {
    const { limit = Infinity, newestFirst = false, maxPartitions, concurrency = 4, maxBytes = Infinity } = options;
    const byDay = await partitions(userId, keys, timeKey, start, end, maxPartitions);
    const order = newestFirst ? 'DESC' : 'ASC';
    const reads = pLimit(concurrency);
    const pageSize = Math.max(1, Math.min(2000, limit));

    async function* byWriteTs(key: string, day: number): AsyncGenerator<Row, void> {
      for await (const r of cql.iterate(
        `SELECT write_ts AS t, entry FROM timeseries WHERE user_id = ? AND key = ? AND day = ? AND write_ts >= ? AND write_ts <= ? ORDER BY write_ts ${order}`,
        [userId, key, day, start, end],
        pageSize,
      )) {
        yield { t: Number(r['t']), entry: String(r['entry']) };
      }
    }
    /** A page of the data.ts ordering at a time, each page's entries then fetched from the write ordering. */
    async function* byDataTs(key: string, day: number): AsyncGenerator<Row, void> {
      let page: EntryPlace[] = [];
      for await (const r of cql.iterate(
        `SELECT data_ts, write_ts, type FROM timeseries_by_data_ts WHERE user_id = ? AND key = ? AND day = ? AND data_ts >= ? AND data_ts <= ? ORDER BY data_ts ${order}`,
        [userId, key, day, start, end],
        pageSize,
      )) {
        page.push({ dataTs: Number(r['data_ts']), writeTs: Number(r['write_ts']), type: String(r['type']) });
        if (page.length === pageSize) {
          yield* await entriesAt(cql, userId, key, page);
          page = [];
        }
      }
      if (page.length > 0) yield* await entriesAt(cql, userId, key, page);
    }
    const rowsOf = timeKey === 'data.ts' ? byDataTs : byWriteTs;
    async function openDay(day: number): Promise<Cursor[]> {
      const cursors = await Promise.all(
        (byDay.get(day) ?? []).map(async (key) => {
          const rows = rowsOf(key, day);
          const first = await reads(() => rows.next());
          return first.done ? undefined : ({ rows, head: first.value } satisfies Cursor);
        }),
      );
      return cursors.filter((c): c is Cursor => c !== undefined);
    }

    // Days in order; within a day, the keys' partitions merged by time (each is sorted), holding one page per
    // key. The next few days are opened ahead so their first pages arrive while this one is merged.
    const days = [...byDay.keys()];
    if (newestFirst) days.reverse();
    const ahead: Promise<Cursor[]>[] = [];
    const openAhead = (i: number) => {
      while (ahead.length < concurrency && i + ahead.length < days.length) {
        const opened = openDay(days[i + ahead.length]!);
        opened.catch(() => undefined); // awaited below; abandoned when the limit is reached first
        ahead.push(opened);
      }
    };
    const before = (a: number, b: number) => (newestFirst ? a > b : a < b);
    const found: TimedEntry[] = [];
    let handled = 0;
    let bytes = 0;
    for (let i = 0; i < days.length && found.length < limit; i++) {
      openAhead(i);
      const cursors = await ahead.shift()!;
      while (cursors.length > 0 && found.length < limit) {
        let best = 0;
        for (let c = 1; c < cursors.length; c++) if (before(cursors[c]!.head.t, cursors[best]!.head.t)) best = c;
        const cursor = cursors[best]!;
        found.push({ ts: cursor.head.t, json: cursor.head.entry });
        // +1: the comma that joins it into the answer.
        bytes += Buffer.byteLength(cursor.head.entry) + 1;
        if (bytes > maxBytes) throw entriesTooLarge(maxBytes);
        // The next row could cost a page of reads (of places and their entries): none once the limit is reached.
        if (found.length >= limit) break;
        const next = await reads(() => cursor.rows.next());
        if (next.done) cursors.splice(best, 1);
        else cursor.head = next.value;
        if (++handled % ROWS_PER_TURN === 0) await yieldToEventLoop();
      }
    }
    return newestFirst ? found.reverse() : found;
  }

  return {
    findTimed,
    async *rawEntries(userId, fromDay, toDay, { pageSize = 500 } = {}) {
      const [start, end] = [fromDay * SECONDS_PER_DAY, toDay * SECONDS_PER_DAY];
      const byDay = await partitions(userId, null, 'metadata.write_ts', start, end);
      let handled = 0;
      for (const [day, keys] of byDay) {
        for (const key of keys) {
          for await (const row of cql.iterate(
            'SELECT entry FROM timeseries WHERE user_id = ? AND key = ? AND day = ?',
            [userId, key, day],
            pageSize,
          )) {
            yield String(row['entry']);
            if (++handled % ROWS_PER_TURN === 0) await yieldToEventLoop();
          }
        }
      }
    },
    async find(userId, keys, timeKey, start, end, options) {
      return (await findTimed(userId, keys, timeKey, start, end, options)).map((e) => e.json);
    },
    async countByKey(userId) {
      const byDay = await partitions(userId, null, 'metadata.write_ts', 0, Number.MAX_SAFE_INTEGER);
      const counts: Record<string, number> = {};
      for (const [day, keys] of byDay) {
        for (const key of keys) {
          const rs = await cql.read('SELECT COUNT(*) AS n FROM timeseries WHERE user_id = ? AND key = ? AND day = ?', [
            userId,
            key,
            day,
          ]);
          counts[key] = (counts[key] ?? 0) + Number(rs.rows[0]?.['n'] ?? 0);
        }
      }
      return counts;
    },
  };
}

/** The day index's key for the data.ts-ordered copy of `key` (see upsertStatements). */
const DATA_TS_PREFIX = '#data.ts#';

/** One partition a user has data in, as the day index lists it. */
export interface TimeseriesPartition {
  /** The entry key (`background/location`…). */
  key: string;
  /** UTC day number of write_ts (`byDataTs` false) or of data.ts (`byDataTs` true). */
  day: number;
  byDataTs: boolean;
}

export interface TimeseriesEraser {
  /** Every partition the user has, from the day index (both orderings). */
  partitions(userId: string): AsyncGenerator<TimeseriesPartition>;
  /** The deletes of one partition's rows (of either ordering) and of its day-index row. */
  removePartition(userId: string, p: TimeseriesPartition): Statement[];
  /** The delete of a partition's day-index row alone, once its rows are gone. */
  removeDayIndex(userId: string, p: TimeseriesPartition): Statement;
  /** The identities of one write-ordered partition's entries written before `beforeTs` (no entry text read). */
  writtenBefore(userId: string, key: string, day: number, beforeTs: number): AsyncGenerator<StoredIdentity>;
  /** The deletes of one entry's rows in both orderings, by its identity. */
  removeEntry(userId: string, key: string, id: StoredIdentity): Statement[];
  /** Whether a data.ts-ordered partition has no entry left (its day-index row can then go). */
  isDataDayEmpty(userId: string, key: string, day: number): Promise<boolean>;
}

/** What identifies an entry's rows: its write time and type (and its data.ts, which files the second copy). */
export interface StoredIdentity {
  writeTs: number;
  type: string;
  dataTs: number | null;
}

/** Removal from the timeseries tables: account deletion and retention. */
export function createTimeseriesEraser(cql: Cql): TimeseriesEraser {
  return {
    async *partitions(userId) {
      for await (const r of cql.iterate('SELECT key, day FROM timeseries_days WHERE user_id = ?', [userId], 5000)) {
        const indexKey = String(r['key']);
        const byDataTs = indexKey.startsWith(DATA_TS_PREFIX);
        yield { key: byDataTs ? indexKey.slice(DATA_TS_PREFIX.length) : indexKey, day: Number(r['day']), byDataTs };
      }
    },
    removePartition(userId, p) {
      const table = p.byDataTs ? 'timeseries_by_data_ts' : 'timeseries';
      return [
        { query: `DELETE FROM ${table} WHERE user_id = ? AND key = ? AND day = ?`, params: [userId, p.key, p.day] },
        this.removeDayIndex(userId, p),
      ];
    },
    removeDayIndex(userId, p) {
      return {
        query: 'DELETE FROM timeseries_days WHERE user_id = ? AND key = ? AND day = ?',
        params: [userId, p.byDataTs ? DATA_TS_PREFIX + p.key : p.key, p.day],
      };
    },
    async *writtenBefore(userId, key, day, beforeTs) {
      for await (const r of cql.iterate(
        'SELECT write_ts, type, data_ts FROM timeseries WHERE user_id = ? AND key = ? AND day = ? AND write_ts < ?',
        [userId, key, day, beforeTs],
        5000,
      )) {
        const dataTs = r['data_ts'];
        yield {
          writeTs: Number(r['write_ts']),
          type: String(r['type']),
          dataTs: dataTs === null ? null : Number(dataTs),
        };
      }
    },
    removeEntry(userId, key, { writeTs, type, dataTs }) {
      const rows: Statement[] = [
        {
          query: 'DELETE FROM timeseries WHERE user_id = ? AND key = ? AND day = ? AND write_ts = ? AND type = ?',
          params: [userId, key, dayOf(writeTs), writeTs, type],
        },
      ];
      if (dataTs !== null)
        rows.push({
          query:
            'DELETE FROM timeseries_by_data_ts WHERE user_id = ? AND key = ? AND day = ? AND data_ts = ? AND write_ts = ? AND type = ?',
          params: [userId, key, dayOf(dataTs), dataTs, writeTs, type],
        });
      return rows;
    },
    async isDataDayEmpty(userId, key, day) {
      const rs = await cql.read(
        'SELECT data_ts FROM timeseries_by_data_ts WHERE user_id = ? AND key = ? AND day = ? LIMIT 1',
        [userId, key, day],
      );
      return rs.rows.length === 0;
    },
  };
}
