import { randomBytes, randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Cql } from '../cassandra/index.js';

/**
 * Tables `users_by_email` and `users_by_uuid`: every registered user, by the token the phone sends (its "email") and
 * by the UUID everything else is keyed by. Written by the gateway (`/profile/create`); read by the gateway on every
 * call (through a bounded cache) and by operators' commands (`npx itinera user`, resets by email).
 */
export interface User {
  uuid: string;
  userEmail: string;
  oid: string;
  createTs: Date;
  updateTs: Date;
}

export interface UserStore {
  /** Same token, same uuid, however many times and however concurrently it is called. */
  register(userEmail: string): Promise<{ user: User; created: boolean }>;
  findByEmail(userEmail: string): Promise<User | undefined>;
  findByUuid(uuid: string): Promise<User | undefined>;
}

function toUser(row: Record<string, unknown>, userEmail?: string): User {
  return {
    uuid: String(row['uuid']),
    userEmail: userEmail ?? String(row['user_email']),
    oid: String(row['oid']),
    createTs: row['create_ts'] as Date,
    updateTs: row['update_ts'] as Date,
  };
}

export interface UserStoreOptions {
  /** Token to user lookups remembered, least recently used dropped first. @defaultValue 100000 */
  cacheEntries?: number;
}

export function createUsersTable(cql: Cql, { cacheEntries = 100_000 }: UserStoreOptions = {}): UserStore {
  // Bounded: a client cycling through tokens (valid or forged, in skip mode every token is a user) must not grow
  // the gateway's heap without end.
  const byEmail = new LRUCache<string, User>({ max: cacheEntries });
  return {
    async register(userEmail) {
      const now = new Date();
      const candidate = { uuid: randomUUID(), oid: randomBytes(12).toString('hex') };
      // The lightweight transaction decides the race between two phones registering the same token at once.
      const rs = await cql.conditional(
        'INSERT INTO users_by_email (user_email, uuid, oid, create_ts, update_ts) VALUES (?, ?, ?, ?, ?) IF NOT EXISTS',
        [userEmail, candidate.uuid, candidate.oid, now, now],
      );
      const row: Record<string, unknown> = rs.rows[0] ?? {};
      const created = row['[applied]'] === true;
      const user: User = created
        ? { ...candidate, userEmail, createTs: now, updateTs: now }
        : { ...toUser(row, userEmail), updateTs: now };
      await cql.write('UPDATE users_by_email SET update_ts = ? WHERE user_email = ?', [now, userEmail]);
      await cql.write(
        'INSERT INTO users_by_uuid (uuid, user_email, oid, create_ts, update_ts) VALUES (?, ?, ?, ?, ?)',
        [user.uuid, userEmail, user.oid, user.createTs, now],
      );
      byEmail.set(userEmail, user);
      return { user, created };
    },
    async findByEmail(userEmail) {
      // A user's uuid never changes once registered, so a process-wide cache is safe and spares a read per call.
      const cached = byEmail.get(userEmail);
      if (cached) return cached;
      const rs = await cql.read('SELECT uuid, oid, create_ts, update_ts FROM users_by_email WHERE user_email = ?', [
        userEmail,
      ]);
      const row = rs.rows[0];
      if (!row) return undefined;
      const user = toUser(row, userEmail);
      byEmail.set(userEmail, user);
      return user;
    },
    async findByUuid(uuid) {
      const rs = await cql.read(
        'SELECT uuid, user_email, oid, create_ts, update_ts FROM users_by_uuid WHERE uuid = ?',
        [uuid],
      );
      const row = rs.rows[0];
      return row ? toUser(row) : undefined;
    },
  };
}
