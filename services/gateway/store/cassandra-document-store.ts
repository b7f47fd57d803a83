import type { Cql } from '../../../shared/cassandra/index.js';
import { createUsercacheDocumentsTable, type UsercacheDocumentsTable } from '../../../shared/tables/index.js';

export type { ServerToPhoneDocument } from '../../../shared/tables/index.js';

/** What the gateway reads of the usercache documents the trip builder writes. */
export type DocumentReader = Pick<UsercacheDocumentsTable, 'list' | 'get'>;

export function createCassandraDocumentReader(cql: Cql): DocumentReader {
  return createUsercacheDocumentsTable(cql);
}
