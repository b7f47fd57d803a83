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
  /**
   * As `register`, with the uuid given (an account moved from an e-mission server keeps its uuid). A token already
   * registered keeps its own uuid, which the result shows.
   */
  registerAs(userEmail: string, uuid: string): Promise<{ user: User; created: boolean }>;
  findByEmail(userEmail: string): Promise<User | undefined>;
  findByUuid(uuid: string): Promise<User | undefined>;
  /**
   * Removes the user under both keys: the token then answers 403 on this process at once, and on other gateways
   * once their cached entry expires (`cacheTtlMs`).
   */
  remove(uuid: string): Promise<void>;
}

/** The whole list of users, which only operators' commands walk (the gateway never needs it). */
export interface UserList {
  /**
   * Every registered user, from `users_by_uuid` in token order (no meaning, but stable), a page of `pageSize` at a
   * time: operators' commands over all users (`itinera export -a`) hold one page, however many users there are.
   */
  all(options?: { pageSize?: number }): AsyncGenerator<User>;
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
  /**
   * How long a cached token stays trusted: the longest another gateway keeps serving a deleted account's token.
   * @defaultValue 60000
   */
  cacheTtlMs?: number;
}

export function createUsersTable(
  cql: Cql,
  { cacheEntries = 100_000, cacheTtlMs = 60_000 }: UserStoreOptions = {},
): UserStore & UserList {
  // Bounded: a client cycling through tokens (valid or forged, in skip mode every token is a user) must not grow
  // the gateway's heap without end.
  const byEmail = new LRUCache<string, User>({ max: cacheEntries, ttl: cacheTtlMs });
  async function registerAs(userEmail: string, uuid: string) {
    const now = new Date();
    const candidate = { uuid, oid: randomBytes(12).toString('hex') };
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
    await cql.write('INSERT INTO users_by_uuid (uuid, user_email, oid, create_ts, update_ts) VALUES (?, ?, ?, ?, ?)', [
      user.uuid,
      userEmail,
      user.oid,
      user.createTs,
      now,
    ]);
    byEmail.set(userEmail, user);
    return { user, created };
  }

  async function findByUuid(uuid: string): Promise<User | undefined> {
    const rs = await cql.read('SELECT uuid, user_email, oid, create_ts, update_ts FROM users_by_uuid WHERE uuid = ?', [
      uuid,
    ]);
    const row = rs.rows[0];
    return row ? toUser(row) : undefined;
  }

  return {
    register: (userEmail) => registerAs(userEmail, randomUUID()),
    registerAs,
    async findByEmail(userEmail) {
      // A user's uuid never changes once registered, so a process-wide cache spares a read per call; only an account
      // deletion ends it, and the entry's time to live bounds how long another gateway can miss that.
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
    async remove(uuid) {
      const user = await findByUuid(uuid);
      if (user) {
        byEmail.delete(user.userEmail);
        await cql.write('DELETE FROM users_by_email WHERE user_email = ?', [user.userEmail]);
      }
      await cql.write('DELETE FROM users_by_uuid WHERE uuid = ?', [uuid]);
    },
    async *all({ pageSize = 500 } = {}) {
      for await (const row of cql.iterate(
        'SELECT uuid, user_email, oid, create_ts, update_ts FROM users_by_uuid',
        [],
        pageSize,
      )) {
        yield toUser(row);
      }
    },
    findByUuid,
  };
}
