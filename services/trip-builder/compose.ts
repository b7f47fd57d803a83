import type { KeyedProducer } from '../../shared/kafka/index.js';
import type { Cql } from '../../shared/cassandra/index.js';
import { erasureOnTopics, type UserErasure } from '../deletion/user-erasure.js';
import { createDeletedUsersTable } from '../../shared/tables/index.js';
import { createErrorTimeseries, createTimeseriesReader } from '../../shared/timeseries/index.js';
import type { TripBuilderDeps } from './handler.js';
import { createCassandraTransitStops } from './store/cassandra-transit-stops.js';
import { createCassandraTripStore } from './store/cassandra-trip-store.js';
import { createUsercacheDocuments } from './store/cassandra-usercache-documents.js';

/** What the trip builder reads and writes in Cassandra, and how it erases a user deleted while it rebuilt. */
export type TripBuilderStores = Pick<
  TripBuilderDeps,
  'timeseries' | 'trips' | 'documents' | 'errors' | 'deletedUsers' | 'transitStops'
> & { erasure?: (producer: KeyedProducer) => UserErasure };

/**
 * The trip builder's stores over one Cassandra session: what main.ts, the CLI's resets and the tests run. With the
 * topic prefix, also the erasure of users deleted while they were rebuilt.
 */
export function composeTripBuilderStores(cql: Cql, topicPrefix?: string): TripBuilderStores {
  return {
    ...erasureOnTopics(cql, topicPrefix),
    timeseries: createTimeseriesReader(cql),
    trips: createCassandraTripStore(cql),
    documents: createUsercacheDocuments(cql),
    errors: createErrorTimeseries(cql),
    deletedUsers: createDeletedUsersTable(cql),
    transitStops: createCassandraTransitStops(cql),
  };
}
