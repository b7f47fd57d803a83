import type { Cql } from '../../shared/cassandra/index.js';
import { createDeletedUsersTable, createParticipantActivityTable } from '../../shared/tables/index.js';
import { createErrorTimeseries } from '../../shared/timeseries/index.js';
import type { ConverterDeps } from './handler.js';
import { createTimeseriesWriter } from './store/cassandra-timeseries-writer.js';

/** What the converter writes in Cassandra. */
export type ConverterStores = Pick<ConverterDeps, 'timeseries' | 'errors' | 'deletedUsers' | 'activity'>;

/** The converter's stores over one Cassandra session: what main.ts, the CLI's replay and the tests run. */
export function composeConverterStores(cql: Cql): ConverterStores {
  return {
    timeseries: createTimeseriesWriter(cql),
    errors: createErrorTimeseries(cql),
    deletedUsers: createDeletedUsersTable(cql),
    activity: createParticipantActivityTable(cql),
  };
}
