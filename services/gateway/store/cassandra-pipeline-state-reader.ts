import type { Cql } from '../../../shared/cassandra/index.js';
import { createPipelineStateTable, createTripLabelCountsTable } from '../../../shared/tables/index.js';
import type { PipelineStateReader } from '../stores.js';

export function createPipelineStateReader(cql: Cql): PipelineStateReader {
  const state = createPipelineStateTable(cql);
  const counts = createTripLabelCountsTable(cql);
  return {
    progress: (userId) => state.progress(userId),
    tripCounts: (userId) => counts.totals(userId),
  };
}
