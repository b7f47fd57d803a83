import type { Cql } from '../../../shared/cassandra/index.js';
import { createUsercacheDocumentsTable, type UsercacheDocumentsTable } from '../../../shared/tables/index.js';

/** The server-to-phone documents the trip builder owns in the usercache (`diary/trips-<date>`). */
export type UsercacheDocuments = Pick<UsercacheDocumentsTable, 'keys' | 'put' | 'remove'>;

export function createUsercacheDocuments(cql: Cql): UsercacheDocuments {
  return createUsercacheDocumentsTable(cql);
}
