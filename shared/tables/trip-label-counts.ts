import type { Cql } from '../cassandra/index.js';

/**
 * Table `trip_label_counts`: per user and trip-local date, how many trips the day has and how many of them the user
 * labelled, so `/profile/get` sums a few hundred rows a year rather than reading every trip. Written by the trip
 * builder each time it renders a day; read by the gateway.
 */
const TABLE = 'trip_label_counts';

/** e-mission's pipeline-dependent user stats, as the profile carries them. */
export interface TripCounts {
  totalTrips: number;
  /** Trips whose composite has a non-empty `user_input`. */
  labeledTrips: number;
}

export interface TripLabelCountsTable {
  save(userId: string, localDate: string, counts: TripCounts): Promise<void>;
  remove(userId: string, localDate: string): Promise<void>;
  /** The user's counts summed over every day. */
  totals(userId: string): Promise<TripCounts>;
  /** The trip-local dates the user has counts for. */
  dates(userId: string): Promise<string[]>;
  /** The user's counts of each date from `fromDate` to `toDate` (both included) that has trips. */
  between(userId: string, fromDate: string, toDate: string): Promise<Map<string, TripCounts>>;
  /** Every day of the user (account deletion). */
  removeUser(userId: string): Promise<void>;
}

export function createTripLabelCountsTable(cql: Cql): TripLabelCountsTable {
  return {
    async dates(userId) {
      const rs = await cql.read(`SELECT local_date FROM ${TABLE} WHERE user_id = ?`, [userId]);
      return rs.rows.map((r) => String(r['local_date']));
    },
    async between(userId, fromDate, toDate) {
      const rs = await cql.read(
        `SELECT local_date, total_trips, labeled_trips FROM ${TABLE} WHERE user_id = ? AND local_date >= ? AND local_date <= ?`,
        [userId, fromDate, toDate],
      );
      return new Map(
        rs.rows.map((r) => [
          String(r['local_date']),
          { totalTrips: Number(r['total_trips'] ?? 0), labeledTrips: Number(r['labeled_trips'] ?? 0) },
        ]),
      );
    },
    async removeUser(userId) {
      await cql.write(`DELETE FROM ${TABLE} WHERE user_id = ?`, [userId]);
    },
    async save(userId, localDate, { totalTrips, labeledTrips }) {
      await cql.write(`INSERT INTO ${TABLE} (user_id, local_date, total_trips, labeled_trips) VALUES (?, ?, ?, ?)`, [
        userId,
        localDate,
        totalTrips,
        labeledTrips,
      ]);
    },
    async remove(userId, localDate) {
      await cql.write(`DELETE FROM ${TABLE} WHERE user_id = ? AND local_date = ?`, [userId, localDate]);
    },
    async totals(userId) {
      // One partition, one row per day with trips: the sum runs on the server.
      const rs = await cql.read(
        `SELECT SUM(total_trips) AS total, SUM(labeled_trips) AS labeled FROM ${TABLE} WHERE user_id = ?`,
        [userId],
      );
      const row = rs.rows[0];
      return { totalTrips: Number(row?.['total'] ?? 0), labeledTrips: Number(row?.['labeled'] ?? 0) };
    },
  };
}
