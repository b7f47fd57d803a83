import type { Cql } from '../../../shared/cassandra/index.js';
import {
  createPipelineStateTable,
  createTripLabelCountsTable,
  type PipelineProgress,
  type TripCounts,
} from '../../../shared/tables/index.js';

export type { PipelineProgress, TripCounts } from '../../../shared/tables/index.js';

/** What the profile reads of the trip builder's progress and counts. */
export interface PipelineStateReader {
  progress(userId: string): Promise<PipelineProgress>;
  /** The user's trips and labelled trips, summed over the per-day counts the trip builder keeps. */
  tripCounts(userId: string): Promise<TripCounts>;
}

export function createPipelineStateReader(cql: Cql): PipelineStateReader {
  const state = createPipelineStateTable(cql);
  const counts = createTripLabelCountsTable(cql);
  return {
    progress: (userId) => state.progress(userId),
    tripCounts: (userId) => counts.totals(userId),
  };
}
