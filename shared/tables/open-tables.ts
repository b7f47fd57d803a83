import type { Cql } from '../cassandra/execute.js';
import { createCompositeEntriesTable, type CompositeEntriesTable } from './composite-entries.js';
import { createDiaryDaysTable, type DiaryDaysTable } from './diary-days.js';
import { createLabelTripMetricsTable, type LabelTripMetricsTable } from './label-trip-metrics.js';
import { createParticipantActivityTable, type ParticipantActivityTable } from './participant-activity.js';
import { createParticipantDaysTable, type ParticipantDaysTable } from './participant-days.js';
import { createPipelineStateTable, type PipelineStateTable } from './pipeline-state.js';
import { createProfilesTable, type ProfilesTable } from './profiles.js';
import { createProgramConfigsTable, type ProgramConfigsTable } from './program-configs.js';
import { createSectionMetricsTable, type SectionMetricsTable } from './section-metrics.js';
import { createTripLabelCountsTable, type TripLabelCountsTable } from './trip-label-counts.js';
import { createUsercacheDocumentsTable, type UsercacheDocumentsTable } from './usercache-documents.js';

/** The shared tables that take nothing but the session, by the name their users call them. */
export interface Tables {
  compositeEntries: CompositeEntriesTable;
  diaryDays: DiaryDaysTable;
  labelMetrics: LabelTripMetricsTable;
  activity: ParticipantActivityTable;
  participantDays: ParticipantDaysTable;
  pipelineState: PipelineStateTable;
  profiles: ProfilesTable;
  programConfigs: ProgramConfigsTable;
  sectionMetrics: SectionMetricsTable;
  labelCounts: TripLabelCountsTable;
  usercacheDocuments: UsercacheDocumentsTable;
}

const factories: { [K in keyof Tables]: (cql: Cql) => Tables[K] } = {
  compositeEntries: createCompositeEntriesTable,
  diaryDays: createDiaryDaysTable,
  labelMetrics: createLabelTripMetricsTable,
  activity: (cql) => createParticipantActivityTable(cql),
  participantDays: createParticipantDaysTable,
  pipelineState: createPipelineStateTable,
  profiles: createProfilesTable,
  programConfigs: createProgramConfigsTable,
  sectionMetrics: createSectionMetricsTable,
  labelCounts: createTripLabelCountsTable,
  usercacheDocuments: createUsercacheDocumentsTable,
};

/**
 * The shared tables over one session, for the places that work across many of them (the trip builder's store,
 * account erasure, the console). Each is built when first named: some hold caches sized for a whole cohort, which a
 * caller that never names that table should not allocate. Tables built with options of their own (users, tokens,
 * deleted users) and the generic ones (trips, trip builder state) are built by their factories where they are used.
 */
export function openTables(cql: Cql): Readonly<Tables> {
  const tables = {} as Tables;
  for (const name of Object.keys(factories) as (keyof Tables)[]) {
    let table: Tables[typeof name] | undefined;
    Object.defineProperty(tables, name, { enumerable: true, get: () => (table ??= factories[name](cql)) });
  }
  return tables;
}
