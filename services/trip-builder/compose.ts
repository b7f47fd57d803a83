import type { Cql } from '../../shared/cassandra/index.js';
import { createDeletedUsersTable } from '../../shared/tables/index.js';
import { createErrorTimeseries, createTimeseriesReader } from '../../shared/timeseries/index.js';
import type { TripBuilderDeps } from './handler.js';
import { createCassandraTransitStops } from './store/cassandra-transit-stops.js';
import { createCassandraTripStore } from './store/cassandra-trip-store.js';
import { createUsercacheDocuments } from './store/cassandra-usercache-documents.js';

/** What the trip builder reads and writes in Cassandra. */
export type TripBuilderStores = Pick<
  TripBuilderDeps,
  'timeseries' | 'trips' | 'documents' | 'errors' | 'deletedUsers' | 'transitStops'
>;

/** The trip builder's stores over one Cassandra session: what main.ts, the CLI's resets and the tests run. */
export function composeTripBuilderStores(cql: Cql): TripBuilderStores {
  return {
    timeseries: createTimeseriesReader(cql),
    trips: createCassandraTripStore(cql),
    documents: createUsercacheDocuments(cql),
    errors: createErrorTimeseries(cql),
    deletedUsers: createDeletedUsersTable(cql),
    transitStops: createCassandraTransitStops(cql),
  };
}
