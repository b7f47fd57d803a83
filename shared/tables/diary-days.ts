import type { Cql } from '../cassandra/index.js';

/**
 * Table `diary_days`: one row per user and trip-local date holding that day's trips as `/timeline/getTrips`
 * answers them (GeoJSON feature collections). Written by the trip builder each time it renders a day; read by
 * the gateway.
 */
const TABLE = 'diary_days';

export interface DiaryDaysTable {
  save(userId: string, localDate: string, timeline: readonly unknown[]): Promise<void>;
  remove(userId: string, localDate: string): Promise<void>;
  /** The day's trips; empty when the day has none. */
  read(userId: string, localDate: string): Promise<unknown[]>;
  /** Every day of the user (account deletion). */
  removeUser(userId: string): Promise<void>;
}

export function createDiaryDaysTable(cql: Cql): DiaryDaysTable {
  return {
    async removeUser(userId) {
      await cql.write(`DELETE FROM ${TABLE} WHERE user_id = ?`, [userId]);
    },
    async save(userId, localDate, timeline) {
      await cql.write(`INSERT INTO ${TABLE} (user_id, local_date, timeline, update_ts) VALUES (?, ?, ?, ?)`, [
        userId,
        localDate,
        JSON.stringify(timeline),
        new Date(),
      ]);
    },
    async remove(userId, localDate) {
      await cql.write(`DELETE FROM ${TABLE} WHERE user_id = ? AND local_date = ?`, [userId, localDate]);
    },
    async read(userId, localDate) {
      const rs = await cql.read(`SELECT timeline FROM ${TABLE} WHERE user_id = ? AND local_date = ?`, [
        userId,
        localDate,
      ]);
      const row = rs.rows[0];
      return row ? (JSON.parse(String(row['timeline'])) as unknown[]) : [];
    },
  };
}
