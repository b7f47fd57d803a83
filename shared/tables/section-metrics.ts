import { type Cql, type DayScanLimits, scanDayPartitions, type Statement } from '../cassandra/index.js';
import { dayOf } from '../timeseries/index.js';

/**
 * Table `section_metrics`: one row per built section, in UTC-day partitions, with what the metrics endpoints
 * (count, distance, duration, speeds per mode) need of it. Written by the trip builder with the trips it replaces;
 * read by the gateway, one user's days or (the aggregate) everyone's.
 */
const TABLE = 'section_metrics';

/** One row: a section of a built trip. */
export interface SectionFact {
  userId: string;
  startTs: number;
  /** The trip's time zone: the metrics bin by local day. */
  timeZone: string;
  /** The sensed mode's name (`IN_VEHICLE`, `WALKING`, …). */
  mode: string;
  distance: number;
  duration: number;
}

const COLUMNS = 'user_id, start_ts, time_zone, mode, distance, duration';

export interface SectionMetricsTable {
  /** The upsert of one section's row, to run with the trip's other writes. */
  insert(fact: SectionFact): Statement;
  /** The delete of one section's row, by its user and start. */
  remove(userId: string, startTs: number): Statement;
  /**
   * The delete of all the user's rows of one UTC day (`day` = floor(start_ts / 86400)): the rows are partitioned by
   * day, so an account deletion names each day the user can have sections on.
   */
  removeUserDay(userId: string, day: number): Statement;
  /**
   * Hands every section starting in [startTs, endTs], of one user or (null) of everyone, to `visit`, as rows
   * stream in, within `limits` (refused with a ValidationError past `maxRows`).
   */
  scan(
    userId: string | null,
    startTs: number,
    endTs: number,
    visit: (section: SectionFact) => void,
    limits: DayScanLimits,
  ): Promise<void>;
}

export function createSectionMetricsTable(cql: Cql): SectionMetricsTable {
  return {
    insert: (f) => ({
      query: `INSERT INTO ${TABLE} (day, user_id, start_ts, time_zone, mode, distance, duration) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      params: [dayOf(f.startTs), f.userId, f.startTs, f.timeZone, f.mode, f.distance, f.duration],
    }),
    remove: (userId, startTs) => ({
      query: `DELETE FROM ${TABLE} WHERE day = ? AND user_id = ? AND start_ts = ?`,
      params: [dayOf(startTs), userId, startTs],
    }),
    removeUserDay: (userId, day) => ({
      query: `DELETE FROM ${TABLE} WHERE day = ? AND user_id = ?`,
      params: [day, userId],
    }),
    async scan(userId, startTs, endTs, visit, limits) {
      const query = userId
        ? `SELECT ${COLUMNS} FROM ${TABLE} WHERE day = ? AND user_id = ?`
        : `SELECT ${COLUMNS} FROM ${TABLE} WHERE day = ?`;
      const days: number[] = [];
      for (let d = dayOf(startTs); d <= dayOf(endTs); d++) days.push(d);
      await scanDayPartitions(
        cql,
        days,
        (day) => ({ query, params: userId ? [day, userId] : [day] }),
        (r) => {
          const rowStartTs = Number(r['start_ts']);
          if (rowStartTs < startTs || rowStartTs > endTs) return;
          visit({
            userId: String(r['user_id']),
            startTs: rowStartTs,
            timeZone: String(r['time_zone']),
            mode: String(r['mode']),
            distance: Number(r['distance']),
            duration: Number(r['duration']),
          });
        },
        limits,
      );
    },
  };
}
