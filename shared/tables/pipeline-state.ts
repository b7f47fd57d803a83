import type { Cql } from '../cassandra/index.js';

/**
 * Table `pipeline_state`: per user and pipeline stage, how far processing has come (e-mission's `complete_ts` and
 * `pipeline_range`). Written by the trip builder after each rebuild; read by the gateway for the profile and by
 * operators (`npx itinera user`).
 */
const TABLE = 'pipeline_state';

/** The stage the trip builder records its per-user progress under. */
export const TRIP_BUILDER_STAGE = 'trip-builder';

export interface PipelineProgress {
  /** Everything up to this time is processed into trips (e-mission's complete_ts). */
  completeTs: number | null;
  /** First trip start and last trip end (e-mission's profile.pipeline_range). */
  rangeStartTs: number | null;
  rangeEndTs: number | null;
}

export interface PipelineStateTable {
  save(userId: string, progress: PipelineProgress, stage?: string): Promise<void>;
  /** The stage's progress; nulls for a user it has not processed yet. */
  progress(userId: string, stage?: string): Promise<PipelineProgress>;
  /** Every stage's state of the user (account deletion). */
  removeUser(userId: string): Promise<void>;
}

export function createPipelineStateTable(cql: Cql): PipelineStateTable {
  return {
    async removeUser(userId) {
      await cql.write(`DELETE FROM ${TABLE} WHERE user_id = ?`, [userId]);
    },
    async save(userId, p, stage = TRIP_BUILDER_STAGE) {
      await cql.write(
        `INSERT INTO ${TABLE} (user_id, stage, last_processed_ts, range_start_ts, range_end_ts, state, update_ts) VALUES (?, ?, ?, ?, ?, ?, ?)`,
        [userId, stage, p.completeTs, p.rangeStartTs, p.rangeEndTs, 'done', new Date()],
      );
    },
    async progress(userId, stage = TRIP_BUILDER_STAGE) {
      const rs = await cql.read(
        `SELECT last_processed_ts, range_start_ts, range_end_ts FROM ${TABLE} WHERE user_id = ? AND stage = ?`,
        [userId, stage],
      );
      const row = rs.rows[0];
      const num = (v: unknown) => (typeof v === 'number' ? v : null);
      return {
        completeTs: num(row?.['last_processed_ts']),
        rangeStartTs: num(row?.['range_start_ts']),
        rangeEndTs: num(row?.['range_end_ts']),
      };
    },
  };
}
