import { LRUCache } from 'lru-cache';
import type { Cql } from '../cassandra/index.js';

/**
 * Table `deleted_users` (schemas/cql/010): accounts deleted. Written by account deletion; read by the converter
 * and the trip builder, which drop what still arrives for a deleted user.
 */
const TABLE = 'deleted_users';

export type DeletedBy = 'user' | 'operator';

export interface DeletedUsersTable {
  record(userId: string, by: DeletedBy): Promise<void>;
  /** Whether the account was deleted: a read at most every `recheckMs` per live user, and once per deleted one. */
  isDeleted(userId: string): Promise<boolean>;
  /** Whether the account was deleted, read now (registration's check against a deletion running at the same time). */
  isDeletedNow(userId: string): Promise<boolean>;
}

export interface DeletedUsersOptions {
  /**
   * How long "not deleted" is believed: the longest a worker can go on storing a deleted user's entries that were
   * already in flight. A deleted account never comes back, so "deleted" is believed for good. @defaultValue 30000
   */
  recheckMs?: number;
  /** Users remembered. @defaultValue 100000 */
  cacheEntries?: number;
}

export function createDeletedUsersTable(
  cql: Cql,
  { recheckMs = 30_000, cacheEntries = 100_000 }: DeletedUsersOptions = {},
): DeletedUsersTable {
  const known = new LRUCache<string, boolean>({ max: cacheEntries });
  const readNow = async (userId: string) => {
    const rs = await cql.read(`SELECT user_id FROM ${TABLE} WHERE user_id = ?`, [userId]);
    const deleted = rs.rows.length > 0;
    known.set(userId, deleted, deleted ? {} : { ttl: recheckMs });
    return deleted;
  };
  return {
    async record(userId, by) {
      await cql.write(`INSERT INTO ${TABLE} (user_id, deleted_at, deleted_by) VALUES (?, ?, ?)`, [
        userId,
        new Date(),
        by,
      ]);
      known.set(userId, true);
    },
    async isDeleted(userId) {
      const cached = known.get(userId);
      if (cached !== undefined) return cached;
      return readNow(userId);
    },
    isDeletedNow: (userId) => (known.get(userId) === true ? Promise.resolve(true) : readNow(userId)),
  };
}
