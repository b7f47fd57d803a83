import type { Cql } from '../../../shared/cassandra/index.js';
import { createUsercacheDocumentsTable } from '../../../shared/tables/index.js';
import type { UsercacheDocuments } from '../stores.js';

export function createUsercacheDocuments(cql: Cql): UsercacheDocuments {
  return createUsercacheDocumentsTable(cql);
}
