import type { Cql } from '../cassandra/index.js';

/**
 * Table `usercache_documents`: the server-to-phone documents of each user (`diary/trips-<date>`), which the phone
 * pulls with `/usercache/get` and replaces its own set with. Written by the trip builder (it owns the diary
 * documents); read by the gateway.
 */
const TABLE = 'usercache_documents';

export interface ServerToPhoneDocument {
  metadata: { write_ts: number; type: 'document'; key: string };
  data: unknown;
}

export interface UsercacheDocumentsTable {
  /** The user's complete current set of documents, oldest first (the phone replaces all it had). */
  list(userId: string): Promise<ServerToPhoneDocument[]>;
  get(userId: string, key: string): Promise<ServerToPhoneDocument | undefined>;
  keys(userId: string): Promise<string[]>;
  put(userId: string, key: string, data: unknown, writeTs: number): Promise<void>;
  remove(userId: string, key: string): Promise<void>;
  /** Every document of the user (account deletion). */
  removeUser(userId: string): Promise<void>;
}

function toDocument(row: Record<string, unknown>): ServerToPhoneDocument {
  return {
    metadata: { write_ts: Number(row['write_ts']), type: 'document', key: String(row['key']) },
    data: JSON.parse(String(row['data'])) as unknown,
  };
}

export function createUsercacheDocumentsTable(cql: Cql): UsercacheDocumentsTable {
  return {
    async list(userId) {
      const rs = await cql.read(`SELECT key, write_ts, data FROM ${TABLE} WHERE user_id = ?`, [userId]);
      return rs.rows.map(toDocument).sort((a, b) => a.metadata.write_ts - b.metadata.write_ts);
    },
    async get(userId, key) {
      const rs = await cql.read(`SELECT key, write_ts, data FROM ${TABLE} WHERE user_id = ? AND key = ?`, [
        userId,
        key,
      ]);
      const row = rs.rows[0];
      return row ? toDocument(row) : undefined;
    },
    async keys(userId) {
      const rs = await cql.read(`SELECT key FROM ${TABLE} WHERE user_id = ?`, [userId]);
      return rs.rows.map((r) => String(r['key']));
    },
    async put(userId, key, data, writeTs) {
      await cql.write(`INSERT INTO ${TABLE} (user_id, key, write_ts, data) VALUES (?, ?, ?, ?)`, [
        userId,
        key,
        writeTs,
        JSON.stringify(data),
      ]);
    },
    async removeUser(userId) {
      await cql.write(`DELETE FROM ${TABLE} WHERE user_id = ?`, [userId]);
    },
    async remove(userId, key) {
      await cql.write(`DELETE FROM ${TABLE} WHERE user_id = ? AND key = ?`, [userId, key]);
    },
  };
}
