import type { Cql, Statement } from '../cassandra/index.js';

/*
 * Tables `trips_by_day` and `trip_index`: the trip builder's cleaned trips, each stored whole (JSON) under its
 * trip-local date, and an index of their start times and bounds by user. Written by the trip builder; read by it and
 * by account deletion. The trip's shape is the trip builder's: this module stores it as JSON and hands it back typed
 * as the caller says (`T`), as it does the place a trip starts from (`P`).
 */
const INDEX_COLUMNS = 'raw_start_ts, local_date, place_before, start_ts, end_ts';

/** One trip as the index names it. */
export interface TripIndexRow<P> {
  /** Start of the raw data the trip was built from (Unix seconds): the key within the user. */
  rawStartTs: number;
  /** The trip-local date it is filed under in trips_by_day. */
  localDate: string;
  /** The place the trip leaves from, when it has one. */
  placeBefore: P | undefined;
  /** The cleaned trip's bounds (Unix seconds). */
  startTs: number;
  endTs: number;
}

/** What a trip must say of itself to be stored: its key, its date and its bounds. */
export interface StorableTrip<P> {
  rawStartTs: number;
  placeBefore?: P | undefined;
  startTs: number;
  endTs: number;
}

export interface TripsTable<T extends StorableTrip<P>, P> {
  read(userId: string, localDate: string, rawStartTs: number): Promise<T | undefined>;
  ofDay(userId: string, localDate: string): Promise<T[]>;
  /** Trips with a raw start ≥ fromTs (every one when fromTs is not finite), oldest first. */
  indexFrom(userId: string, fromTs: number): Promise<TripIndexRow<P>[]>;
  /** The last trip that started before `ts`. */
  indexBefore(userId: string, ts: number): Promise<TripIndexRow<P> | undefined>;
  /** The first trip that started after `ts`. */
  indexAfter(userId: string, ts: number): Promise<TripIndexRow<P> | undefined>;
  /** The `limit` latest trips, newest first. */
  latest(userId: string, limit: number): Promise<TripIndexRow<P>[]>;
  first(userId: string): Promise<TripIndexRow<P> | undefined>;
  /** The statements that store a trip under `localDate` and index it. */
  put(userId: string, localDate: string, trip: T): Statement[];
  /** The statements that remove one trip and its index row. */
  remove(userId: string, localDate: string, rawStartTs: number): Statement[];
  /** Every index row of the user, read page by page (account deletion). */
  indexOfUser(userId: string): AsyncIterable<TripIndexRow<P>>;
  /** Removes the user's trips of those dates and the whole index (account deletion). */
  removeUser(userId: string, localDates: Iterable<string>): Promise<void>;
}

function parseJson<P>(text: unknown): P | undefined {
  return typeof text === 'string' && text !== '' ? (JSON.parse(text) as P) : undefined;
}

function toIndexRow<P>(row: Record<string, unknown>): TripIndexRow<P> {
  return {
    rawStartTs: Number(row['raw_start_ts']),
    localDate: String(row['local_date']),
    placeBefore: parseJson<P>(row['place_before']),
    startTs: Number(row['start_ts']),
    endTs: Number(row['end_ts']),
  };
}

export function createTripsTable<T extends StorableTrip<P>, P>(cql: Cql): TripsTable<T, P> {
  const oneIndexRow = async (query: string, params: unknown[]) => {
    const rs = await cql.read(query, params);
    return rs.rows[0] ? toIndexRow<P>(rs.rows[0]) : undefined;
  };
  return {
    async read(userId, localDate, rawStartTs) {
      const rs = await cql.read(
        'SELECT trip FROM trips_by_day WHERE user_id = ? AND local_date = ? AND raw_start_ts = ?',
        [userId, localDate, rawStartTs],
      );
      const row = rs.rows[0];
      return row ? (JSON.parse(String(row['trip'])) as T) : undefined;
    },
    async ofDay(userId, localDate) {
      const rs = await cql.read('SELECT trip FROM trips_by_day WHERE user_id = ? AND local_date = ?', [
        userId,
        localDate,
      ]);
      return rs.rows.map((r) => JSON.parse(String(r['trip'])) as T);
    },
    async indexFrom(userId, fromTs) {
      const rs = Number.isFinite(fromTs)
        ? await cql.read(`SELECT ${INDEX_COLUMNS} FROM trip_index WHERE user_id = ? AND raw_start_ts >= ?`, [
            userId,
            fromTs,
          ])
        : await cql.read(`SELECT ${INDEX_COLUMNS} FROM trip_index WHERE user_id = ?`, [userId]);
      return rs.rows.map((r) => toIndexRow<P>(r));
    },
    indexBefore: (userId, ts) =>
      oneIndexRow(
        `SELECT ${INDEX_COLUMNS} FROM trip_index WHERE user_id = ? AND raw_start_ts < ? ORDER BY raw_start_ts DESC LIMIT 1`,
        [userId, ts],
      ),
    indexAfter: (userId, ts) =>
      oneIndexRow(`SELECT ${INDEX_COLUMNS} FROM trip_index WHERE user_id = ? AND raw_start_ts > ? LIMIT 1`, [
        userId,
        ts,
      ]),
    async latest(userId, limit) {
      const rs = await cql.read(
        `SELECT ${INDEX_COLUMNS} FROM trip_index WHERE user_id = ? ORDER BY raw_start_ts DESC LIMIT ?`,
        [userId, limit],
      );
      return rs.rows.map((r) => toIndexRow<P>(r));
    },
    first: (userId) => oneIndexRow(`SELECT ${INDEX_COLUMNS} FROM trip_index WHERE user_id = ? LIMIT 1`, [userId]),
    put(userId, localDate, trip) {
      return [
        {
          query: 'INSERT INTO trips_by_day (user_id, local_date, raw_start_ts, trip) VALUES (?, ?, ?, ?)',
          params: [userId, localDate, trip.rawStartTs, JSON.stringify(trip)],
        },
        {
          query:
            'INSERT INTO trip_index (user_id, raw_start_ts, local_date, place_before, start_ts, end_ts) VALUES (?, ?, ?, ?, ?, ?)',
          params: [
            userId,
            trip.rawStartTs,
            localDate,
            trip.placeBefore ? JSON.stringify(trip.placeBefore) : '',
            trip.startTs,
            trip.endTs,
          ],
        },
      ];
    },
    remove(userId, localDate, rawStartTs) {
      return [
        { query: 'DELETE FROM trip_index WHERE user_id = ? AND raw_start_ts = ?', params: [userId, rawStartTs] },
        {
          query: 'DELETE FROM trips_by_day WHERE user_id = ? AND local_date = ? AND raw_start_ts = ?',
          params: [userId, localDate, rawStartTs],
        },
      ];
    },
    async *indexOfUser(userId) {
      for await (const row of cql.iterate(`SELECT ${INDEX_COLUMNS} FROM trip_index WHERE user_id = ?`, [userId]))
        yield toIndexRow<P>(row);
    },
    async removeUser(userId, localDates) {
      for (const localDate of new Set(localDates))
        await cql.write('DELETE FROM trips_by_day WHERE user_id = ? AND local_date = ?', [userId, localDate]);
      await cql.write('DELETE FROM trip_index WHERE user_id = ?', [userId]);
    },
  };
}
