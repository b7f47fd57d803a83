import type { Cql } from '../../../shared/cassandra/index.js';

export interface PipelineProgress {
  /** Everything up to this time is processed into trips (e-mission's complete_ts). */
  completeTs: number | null;
  /** First trip start and last trip end (e-mission's profile.pipeline_range). */
  rangeStartTs: number | null;
  rangeEndTs: number | null;
}

export interface PipelineStateReader {
  progress(userId: string): Promise<PipelineProgress>;
}

/** Stage name the trip builder records its per-user progress under. */
export const TRIP_BUILDER_STAGE = 'trip-builder';

export function createPipelineStateReader(cql: Cql): PipelineStateReader {
  return {
    async progress(userId) {
      const rs = await cql.read(
        'SELECT last_processed_ts, range_start_ts, range_end_ts FROM pipeline_state WHERE user_id = ? AND stage = ?',
        [userId, TRIP_BUILDER_STAGE],
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
