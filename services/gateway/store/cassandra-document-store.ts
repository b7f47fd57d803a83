import type { Cql } from '../../../shared/cassandra/index.js';
import { createUsercacheDocumentsTable } from '../../../shared/tables/index.js';
import type { DocumentReader } from '../stores.js';

export function createCassandraDocumentReader(cql: Cql): DocumentReader {
  return createUsercacheDocumentsTable(cql);
}
