import type { Cql } from '../../../shared/cassandra/index.js';

export interface ServerToPhoneDocument {
  metadata: { write_ts: number; type: 'document'; key: string };
  data: unknown;
}

export interface DocumentReader {
  /** The user's complete current set of documents, oldest first (the phone replaces all it had). */
  list(userId: string): Promise<ServerToPhoneDocument[]>;
  get(userId: string, key: string): Promise<ServerToPhoneDocument | undefined>;
}

function toDocument(row: Record<string, unknown>): ServerToPhoneDocument {
  return {
    metadata: { write_ts: Number(row['write_ts']), type: 'document', key: String(row['key']) },
    data: JSON.parse(String(row['data'])) as unknown,
  };
}

export function createCassandraDocumentReader(cql: Cql): DocumentReader {
  return {
    async list(userId) {
      const rs = await cql.read('SELECT key, write_ts, data FROM usercache_documents WHERE user_id = ?', [userId]);
      return rs.rows.map(toDocument).sort((a, b) => a.metadata.write_ts - b.metadata.write_ts);
    },
    async get(userId, key) {
      const rs = await cql.read('SELECT key, write_ts, data FROM usercache_documents WHERE user_id = ? AND key = ?', [
        userId,
        key,
      ]);
      const row = rs.rows[0];
      return row ? toDocument(row) : undefined;
    },
  };
}
