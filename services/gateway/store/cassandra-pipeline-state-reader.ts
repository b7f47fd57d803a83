import type { Cql } from '../../../shared/cassandra/index.js';

export interface PipelineProgress {
  /** Everything up to this time is processed into trips (e-mission's complete_ts). */
  completeTs: number | null;
  /** First trip start and last trip end (e-mission's profile.pipeline_range). */
  rangeStartTs: number | null;
  rangeEndTs: number | null;
}

/** e-mission's pipeline-dependent user stats, as the profile carries them. */
export interface TripCounts {
  totalTrips: number;
  /** Trips whose composite has a non-empty `user_input`. */
  labeledTrips: number;
}

export interface PipelineStateReader {
  progress(userId: string): Promise<PipelineProgress>;
  /** The user's trips and labelled trips, summed over the per-day counts the trip builder keeps. */
  tripCounts(userId: string): Promise<TripCounts>;
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
    async tripCounts(userId) {
      // One partition, one row per day with trips: a sum on the server reads a few hundred rows a year.
      const rs = await cql.read(
        'SELECT SUM(total_trips) AS total, SUM(labeled_trips) AS labeled FROM trip_label_counts WHERE user_id = ?',
        [userId],
      );
      const row = rs.rows[0];
      return { totalTrips: Number(row?.['total'] ?? 0), labeledTrips: Number(row?.['labeled'] ?? 0) };
    },
  };
}
