import { randomBytes, randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Cql } from '../cassandra/index.js';
import { ConflictError } from '../errors/index.js';
import { createDeletedUsersTable } from './deleted-users.js';

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
  /**
   * Same token, same uuid, however many times and however concurrently it is called; a token whose account is deleted
   * meanwhile gets a new one, never the deleted uuid.
   */
  register(userEmail: string): Promise<{ user: User; created: boolean }>;
  /**
   * As `register`, with the uuid given (an account moved from an e-mission server keeps its uuid). A token already
   * registered keeps its own uuid, which the result shows. A deleted uuid is refused (ConflictError).
   */
  /**
   * Registers under a uuid given from outside (an import). `createdAt`, when earlier than now, is the account's
   * creation time: an account moved from another deployment keeps its age.
   */
  registerAs(userEmail: string, uuid: string, createdAt?: Date): Promise<{ user: User; created: boolean }>;
  findByEmail(userEmail: string): Promise<User | undefined>;
  findByUuid(uuid: string): Promise<User | undefined>;
  /**
   * Removes the user under both keys: the token then answers 403 on this process at once, and on other gateways
   * once their cached entry expires (`cacheTtlMs`). Call it after marking the uuid deleted (`deleted_users`).
   */
  remove(uuid: string): Promise<void>;
}

/**
 * The whole list of users: what operators' commands walk, and what a gateway reads (every half minute at most) to
 * tell which program each participant belongs to when it aggregates metrics.
 */
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
  const deleted = createDeletedUsersTable(cql, { cacheEntries: 1000 });

  /**
   * One attempt at registering `userEmail` under `uuid`: undefined when a deletion of the account it found ran at the
   * same time (the caller tries again). A token already registered is read, not written: phones register at every
   * start, and lightweight transactions on one token at once would contend. Only a new token is written, by a
   * lightweight transaction that decides between phones registering it at once; a deletion removes the row by another
   * one naming the uuid, so a row never loses its uuid.
   */
  async function attempt(
    userEmail: string,
    uuid: string,
    createdAt?: Date,
  ): Promise<{ user: User; created: boolean } | undefined> {
    const now = new Date();
    const born = createdAt !== undefined && createdAt < now ? createdAt : now;
    const found = (
      await cql.read('SELECT uuid, oid, create_ts, update_ts FROM users_by_email WHERE user_email = ?', [userEmail])
    ).rows[0];
    let user: User;
    let created = false;
    if (found && found['uuid'] !== null) {
      user = { ...toUser(found, userEmail), updateTs: now };
    } else {
      const candidate = { uuid, oid: randomBytes(12).toString('hex') };
      const rs = await cql.conditional(
        'INSERT INTO users_by_email (user_email, uuid, oid, create_ts, update_ts) VALUES (?, ?, ?, ?, ?) IF NOT EXISTS',
        [userEmail, candidate.uuid, candidate.oid, born, now],
      );
      const row: Record<string, unknown> = rs.rows[0] ?? {};
      created = row['[applied]'] === true;
      // A row without a uuid (left by an update that raced a deletion before every write here was conditional) is
      // no account: it is given this one.
      if (!created && row['uuid'] === null) {
        const claimed = await cql.conditional(
          'UPDATE users_by_email SET uuid = ?, oid = ?, create_ts = ?, update_ts = ? WHERE user_email = ? IF uuid = null',
          [candidate.uuid, candidate.oid, born, now, userEmail],
        );
        if (claimed.rows[0]?.['[applied]'] !== true) return undefined;
        created = true;
      }
      user = created
        ? { ...candidate, userEmail, createTs: born, updateTs: now }
        : { ...toUser(row, userEmail), updateTs: now };
    }
    await cql.write('INSERT INTO users_by_uuid (uuid, user_email, oid, create_ts, update_ts) VALUES (?, ?, ?, ?, ?)', [
      user.uuid,
      userEmail,
      user.oid,
      user.createTs,
      now,
    ]);
    // A deletion marks the uuid before it removes the rows. Marked by now: that deletion may have removed its rows
    // before the insert above, so this registration takes back what it wrote. Not marked: any deletion marks it later
    // and removes the rows after that.
    if (await deleted.isDeletedNow(user.uuid)) {
      await removeRows(user.uuid, userEmail);
      return undefined;
    }
    byEmail.set(userEmail, user);
    return { user, created };
  }

  /** Registers, again while a deletion of the account it finds runs at the same time; a new account comes of it. */
  async function registerWith(userEmail: string, uuidOf: () => string, createdAt?: Date) {
    for (let tries = 0; tries < 5; tries += 1) {
      const done = await attempt(userEmail, uuidOf(), createdAt);
      if (done) return done;
    }
    throw new ConflictError('the account is being deleted; register again in a moment');
  }

  async function removeRows(uuid: string, userEmail: string | undefined): Promise<void> {
    if (userEmail !== undefined) {
      byEmail.delete(userEmail);
      // Only the row naming this uuid: the token may have been registered again since, as a new account.
      await cql.conditional('DELETE FROM users_by_email WHERE user_email = ? IF uuid = ?', [userEmail, uuid]);
    }
    await cql.write('DELETE FROM users_by_uuid WHERE uuid = ?', [uuid]);
  }

  async function findByUuid(uuid: string): Promise<User | undefined> {
    const rs = await cql.read('SELECT uuid, user_email, oid, create_ts, update_ts FROM users_by_uuid WHERE uuid = ?', [
      uuid,
    ]);
    const row = rs.rows[0];
    return row ? toUser(row) : undefined;
  }

  return {
    register: (userEmail) => registerWith(userEmail, randomUUID),
    // Only a uuid given from outside can be a deleted one; a fresh random one needs no read to know it is not.
    async registerAs(userEmail, uuid, createdAt) {
      if (await deleted.isDeletedNow(uuid)) throw new ConflictError(`account ${uuid} was deleted and is not reused`);
      return registerWith(userEmail, () => uuid, createdAt);
    },
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
      // A registration that has not yet written the uuid's row finds the deletion's mark and removes its own rows.
      await removeRows(uuid, (await findByUuid(uuid))?.userEmail);
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
