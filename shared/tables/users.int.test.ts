import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../../test/helpers/test-env.js';
import { isOutage } from '../errors/classify.js';
import { createDeletedUsersTable } from './deleted-users.js';
import { createUsersTable } from './users.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.dispose();
});

/**
 * Runs `op` again after an outage answer, as a phone does after a 503 and an operator after a failed deletion: two
 * lightweight transactions on one token at the same instant can time out in Paxos contention, an honest "try again".
 */
async function untilDone<T>(op: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await op();
    } catch (err) {
      if (!isOutage(err) || attempt >= 20) throw err;
      await new Promise((r) => setTimeout(r, 50 * attempt));
    }
  }
}

/** Two gateways' views of the tables, as two processes would hold them. */
const gatewayA = () => createUsersTable(env.cql, { cacheEntries: 10 });
const gatewayB = () => createUsersTable(env.cql, { cacheEntries: 10 });

describe('users', () => {
  it('When a token is deleted and registered again at the same moment, many times, then no row is left half-made and no deleted uuid is served again', async () => {
    const rounds = 6;
    const tokensPerRound = 8;
    const deletedUuids: string[] = [];
    const newUuids = new Map<string, string>();
    for (let round = 0; round < rounds; round += 1) {
      const tokens = Array.from({ length: tokensPerRound }, (_, i) => `race-${round}-${i}@example.org`);
      const registering = gatewayA();
      const deleting = gatewayB();
      const marks = createDeletedUsersTable(env.cql);
      const first = await Promise.all(tokens.map((t) => registering.register(t)));
      // A deletion as deleteUser runs it (mark, then remove), started beside a registration of the same token; the
      // registration waits a few milliseconds more each time, so the two meet at every step of each other.
      await Promise.all(
        tokens.map(async (token, i) => {
          const uuid = first[i]!.user.uuid;
          deletedUuids.push(uuid);
          const deletion = untilDone(async () => {
            await marks.record(uuid, 'user');
            await deleting.remove(uuid);
          });
          await new Promise((r) => setTimeout(r, (i + round) % 6));
          const again = await untilDone(() => registering.register(token));
          newUuids.set(token, again.user.uuid);
          await deletion;
        }),
      );
    }

    const emailRows = await env.cql.read('SELECT user_email, uuid FROM users_by_email', []);
    const uuidRows = await env.cql.read('SELECT uuid, user_email FROM users_by_uuid', []);
    // Every row names a uuid, and none names a deleted one.
    expect(emailRows.rows.filter((r) => r['uuid'] === null).map((r) => r['user_email'])).toEqual([]);
    const deleted = new Set(deletedUuids);
    expect(emailRows.rows.filter((r) => deleted.has(String(r['uuid'])))).toEqual([]);
    expect(uuidRows.rows.filter((r) => deleted.has(String(r['uuid'])))).toEqual([]);
    // A fresh reader finds for each token either nothing (the deletion came last) or the new account, whole under both
    // keys; registering the token once more gives a live account.
    const fresh = createUsersTable(env.cql, { cacheEntries: 10 });
    for (const [token] of newUuids) {
      const found = await fresh.findByEmail(token);
      if (found) {
        expect(deleted.has(found.uuid), token).toBe(false);
        expect((await fresh.findByUuid(found.uuid))?.userEmail, token).toBe(token);
      }
      const live = await fresh.register(token);
      expect(deleted.has(live.user.uuid), token).toBe(false);
    }
  });

  it('When an import asks for a uuid that was deleted, then it is refused', async () => {
    const users = gatewayA();
    const { user } = await users.register('gone-for-good@example.org');
    await createDeletedUsersTable(env.cql).record(user.uuid, 'operator');
    await users.remove(user.uuid);
    await expect(users.registerAs('someone-else@example.org', user.uuid)).rejects.toThrow(/was deleted/);
    expect(await users.findByUuid(user.uuid)).toBeUndefined();
  });
});
