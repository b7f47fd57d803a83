import type { Cql } from '../../../shared/cassandra/index.js';

/** The server-to-phone documents the trip builder owns in the usercache (`diary/trips-<date>`). */
export interface UsercacheDocuments {
  keys(userId: string): Promise<string[]>;
  put(userId: string, key: string, data: unknown, writeTs: number): Promise<void>;
  remove(userId: string, key: string): Promise<void>;
}

export function createUsercacheDocuments(cql: Cql): UsercacheDocuments {
  return {
    async keys(userId) {
      const rs = await cql.read('SELECT key FROM usercache_documents WHERE user_id = ?', [userId]);
      return rs.rows.map((r) => String(r['key']));
    },
    async put(userId, key, data, writeTs) {
      await cql.write('INSERT INTO usercache_documents (user_id, key, write_ts, data) VALUES (?, ?, ?, ?)', [
        userId,
        key,
        writeTs,
        JSON.stringify(data),
      ]);
    },
    async remove(userId, key) {
      await cql.write('DELETE FROM usercache_documents WHERE user_id = ? AND key = ?', [userId, key]);
    },
  };
}
