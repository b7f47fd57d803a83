import type { Cql } from '../../../shared/cassandra/index.js';
import { dayOf } from '../../../shared/timeseries/index.js';
import type { Entry } from '../domain/derived-entries.js';
import type { SectionFact } from '../domain/metrics-summary.js';

/** What the trip builder wrote for the phone to read: a day's timeline and the built sections' facts. */
export interface DiaryReader {
  /** The trips of one trip-local date, as getTrips returns them. */
  timeline(userId: string, localDate: string): Promise<unknown[]>;
  /** The composite-trip entries of the trip-local dates from `fromDate` to `toDate` (YYYY-MM-DD, inclusive). */
  composites(userId: string, fromDate: string, toDate: string): Promise<Entry[]>;
  /** Sections starting in [startTs, endTs], of one user or (null) of everyone. */
  sections(userId: string | null, startTs: number, endTs: number): Promise<SectionFact[]>;
}

/** Longest range a metrics call may span, in days: a partition per day is read. */
export const MAX_METRIC_DAYS = 3 * 366;

export function createCassandraDiaryReader(cql: Cql): DiaryReader {
  return {
    async timeline(userId, localDate) {
      const rs = await cql.read('SELECT timeline FROM diary_days WHERE user_id = ? AND local_date = ?', [
        userId,
        localDate,
      ]);
      const row = rs.rows[0];
      return row ? (JSON.parse(String(row['timeline'])) as unknown[]) : [];
    },
    async composites(userId, fromDate, toDate) {
      const entries: Entry[] = [];
      for await (const row of cql.iterate(
        'SELECT trips FROM composite_days WHERE user_id = ? AND local_date >= ? AND local_date <= ?',
        [userId, fromDate, toDate],
        // A day's entries carry every resampled location: a few days per page keeps a page small.
        20,
      )) {
        entries.push(...(JSON.parse(String(row['trips'])) as Entry[]));
      }
      return entries;
    },
    async sections(userId, startTs, endTs) {
      const days: number[] = [];
      for (let d = dayOf(startTs); d <= dayOf(endTs) && days.length < MAX_METRIC_DAYS; d++) days.push(d);
      const perDay = await Promise.all(
        days.map((day) =>
          userId
            ? cql.read(
                'SELECT user_id, start_ts, time_zone, mode, distance, duration FROM section_metrics WHERE day = ? AND user_id = ?',
                [day, userId],
              )
            : cql.read(
                'SELECT user_id, start_ts, time_zone, mode, distance, duration FROM section_metrics WHERE day = ?',
                [day],
              ),
        ),
      );
      return perDay
        .flatMap((rs) => rs.rows)
        .map((r) => ({
          userId: String(r['user_id']),
          startTs: Number(r['start_ts']),
          timeZone: String(r['time_zone']),
          mode: String(r['mode']),
          distance: Number(r['distance']),
          duration: Number(r['duration']),
        }))
        .filter((s) => s.startTs >= startTs && s.startTs <= endTs);
    },
  };
}
