import { type Cql, type DayScanLimits, scanDayPartitions, type Statement } from '../cassandra/index.js';

/**
 * Table `label_trip_metrics`: one row per confirmed trip, in trip-local-date partitions, with its label dimensions
 * resolved, so `/result/metrics/yyyy_mm_dd` reads a few columns per trip instead of every composite trip. Written
 * by the trip builder each time it renders a day (labels change the rows); read by the gateway's aggregate.
 */
const TABLE = 'label_trip_metrics';

/** One row: a confirmed trip and the values of the aggregate's dimensions for it. */
export interface LabelTripFact {
  userId: string;
  /** The trip's local start date, `start_fmt_time[:10]`: the day e-mission counts it on. */
  localDate: string;
  startTs: number;
  modeConfirm: string;
  purposeConfirm: string;
  replacedModeConfirm: string;
  /** The mode label, else the sensed mode with the greatest distance in the cleaned section summary. */
  mode: string;
  distance: number;
  duration: number;
  /** The trip has a non-empty `user_input` (e-mission's `labeled_trips`). */
  responded: boolean;
  /** The name of the trip survey answered (`user_input.trip_user_input.data.name`), if any. */
  answeredSurvey: string | undefined;
}

const COLUMNS =
  'user_id, start_ts, mode_confirm, purpose_confirm, replaced_mode_confirm, mode, distance, duration, responded, answered_survey';
/** Rows per unlogged batch: about 150 bytes each, under Cassandra's batch size warning (5 kB). */
const ROWS_PER_BATCH = 25;

export interface LabelTripMetricsTable {
  /**
   * Makes one user's rows of one date exactly `facts`: upserts them, and deletes, one by one, the user's rows of
   * trips no longer there. A relabel (the common change) then only overwrites rows, so the date partition every
   * aggregate reads gathers no tombstones from it, as a whole-slice delete per save would.
   */
  replaceDay(userId: string, localDate: string, facts: readonly LabelTripFact[]): Promise<void>;
  /**
   * Overwrites one user's rows of one date with `facts`, deleting none: for a relabel, which never changes which
   * trips a date has, so the read that finds trips gone is not needed.
   */
  upsertDay(userId: string, localDate: string, facts: readonly LabelTripFact[]): Promise<void>;
  /** Hands every user's rows of the dates given to `visit`, as rows stream in, within `limits`. */
  scan(localDates: readonly string[], visit: (fact: LabelTripFact) => void, limits: DayScanLimits): Promise<void>;
  /** The delete of all the user's rows of one date (account deletion names each date the user can have trips on). */
  removeUserDate(userId: string, localDate: string): Statement;
}

export function createLabelTripMetricsTable(cql: Cql): LabelTripMetricsTable {
  async function upsert(localDate: string, userId: string, facts: readonly LabelTripFact[]) {
    const rows: Statement[] = facts.map((f) => ({
      query: `INSERT INTO ${TABLE} (local_date, ${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      params: [
        localDate,
        userId,
        f.startTs,
        f.modeConfirm,
        f.purposeConfirm,
        f.replacedModeConfirm,
        f.mode,
        f.distance,
        f.duration,
        f.responded,
        f.answeredSurvey ?? null,
      ],
    }));
    const batches: Statement[][] = [];
    for (let i = 0; i < rows.length; i += ROWS_PER_BATCH) batches.push(rows.slice(i, i + ROWS_PER_BATCH));
    await Promise.all(batches.map((b) => cql.writeBatch(b)));
  }

  return {
    removeUserDate: (userId, localDate) => ({
      query: `DELETE FROM ${TABLE} WHERE local_date = ? AND user_id = ?`,
      params: [localDate, userId],
    }),
    async replaceDay(userId, localDate, facts) {
      const fresh = new Set(facts.map((f) => f.startTs));
      const before = await cql.read(`SELECT start_ts FROM ${TABLE} WHERE local_date = ? AND user_id = ?`, [
        localDate,
        userId,
      ]);
      const stale = before.rows.map((r) => Number(r['start_ts'])).filter((ts) => !fresh.has(ts));
      await Promise.all(
        stale.map((ts) =>
          cql.write(`DELETE FROM ${TABLE} WHERE local_date = ? AND user_id = ? AND start_ts = ?`, [
            localDate,
            userId,
            ts,
          ]),
        ),
      );
      await upsert(localDate, userId, facts);
    },
    upsertDay: (userId, localDate, facts) => upsert(localDate, userId, facts),

    async scan(localDates, visit, limits) {
      const query = `SELECT ${COLUMNS} FROM ${TABLE} WHERE local_date = ?`;
      await scanDayPartitions(
        cql,
        localDates,
        (localDate) => ({ query, params: [localDate] }),
        (r, localDate) =>
          visit({
            userId: String(r['user_id']),
            localDate,
            startTs: Number(r['start_ts']),
            modeConfirm: String(r['mode_confirm']),
            purposeConfirm: String(r['purpose_confirm']),
            replacedModeConfirm: String(r['replaced_mode_confirm']),
            mode: String(r['mode']),
            distance: Number(r['distance']),
            duration: Number(r['duration']),
            responded: r['responded'] === true,
            answeredSurvey: typeof r['answered_survey'] === 'string' ? r['answered_survey'] : undefined,
          }),
        limits,
      );
    },
  };
}
