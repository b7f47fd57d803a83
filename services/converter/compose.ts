import type { KeyedProducer } from '../../shared/kafka/index.js';
import type { Cql } from '../../shared/cassandra/index.js';
import { erasureOnTopics, type UserErasure } from '../deletion/user-erasure.js';
import {
  createDeletedUsersTable,
  createParticipantActivityTable,
  createParticipantDaysTable,
} from '../../shared/tables/index.js';
import { createErrorTimeseries } from '../../shared/timeseries/index.js';
import type { ConverterDeps } from './handler.js';
import { createTimeseriesWriter } from './store/cassandra-timeseries-writer.js';

/** What the converter writes in Cassandra, and how it erases a user deleted while it wrote. */
export type ConverterStores = Pick<ConverterDeps, 'timeseries' | 'errors' | 'deletedUsers' | 'activity' | 'days'> & {
  erasure?: (producer: KeyedProducer) => UserErasure;
};

/**
 * The converter's stores over one Cassandra session: what main.ts, the CLI's replay and the tests run. With the
 * topic prefix, also the erasure of users deleted while a batch was written.
 */
export function composeConverterStores(cql: Cql, topicPrefix?: string): ConverterStores {
  return {
    ...erasureOnTopics(cql, topicPrefix),
    timeseries: createTimeseriesWriter(cql),
    errors: createErrorTimeseries(cql),
    deletedUsers: createDeletedUsersTable(cql),
    activity: createParticipantActivityTable(cql),
    days: createParticipantDaysTable(cql),
  };
}
