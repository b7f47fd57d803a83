import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CassandraClient } from '../../shared/cassandra/index.js';
import { createConsoleTokensTable, createUsersTable, type ConsoleTokensTable } from '../../shared/tables/index.js';
import { startGateway, type RunningGateway } from '../../test/helpers/gateway.js';
import { createTestEnv, waitFor, type TestEnv } from '../../test/helpers/test-env.js';

let env: TestEnv;
let gw: RunningGateway;
let tokens: ConsoleTokensTable;
/** Writes the gateway sent to refused_tokens. */
let refusedWrites = 0;

beforeAll(async () => {
  env = await createTestEnv();
  tokens = createConsoleTokensTable(env.cql);
  // The gateway's own Cassandra client, counting its writes of refused tokens.
  const counting = new Proxy(env.cassandra, {
    get(target, prop) {
      if (prop === 'execute')
        return (query: string, ...rest: unknown[]) => {
          if (/^INSERT INTO refused_tokens/.test(query)) refusedWrites += 1;
          return (target.execute as (...args: unknown[]) => unknown)(query, ...rest);
        };
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as CassandraClient;
  const config = { ...env.config, webserver: { ...env.config.webserver, auth: 'token_list' as const, tokenList: [] } };
  gw = await startGateway({ ...env, config, cassandra: counting });
});
afterAll(async () => {
  await gw?.close();
  await env?.dispose();
});

async function refused(token: string) {
  return (await tokens.listRefused(1)).find((r) => r.token === token);
}

describe('tokens issued by the console, in token_list mode', () => {
  it('When the console issued a token that is in no file list, then the phone registers with it and reads with it', async () => {
    const token = 'nrelop_study_default_Issued0123456789abcdefghijklmn';
    await tokens.issue([token], 'study', 'default', 'operator@itinera.local');
    const created = await gw.post('/profile/create', { user: token });
    expect(created.status).toBe(200);
    const profile = await gw.post('/profile/get', { user: token });
    expect(profile.status).toBe(200);
    expect(profile.body.user_id).toEqual({ $uuid: String(created.body.uuid).replace(/-/g, '') });
    expect((await gw.post('/pipeline/get_complete_ts', { user: token })).status).toBe(200);
    expect(await refused(token)).toBeUndefined();
  });

  it('When a token was not issued, then it answers 403 and the console lists it as refused', async () => {
    const token = 'nrelop_study_default_Typo0123456789abcdefghijklmnop';
    const res = await gw.post('/profile/create', { user: token });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('AUTH_FORBIDDEN');
    const row = await waitFor(() => refused(token), 10_000, 'the refusal');
    expect(row).toMatchObject({ attempts: 1, reason: 'not in the token list, nor issued' });
    expect(Math.abs(row.lastTs - Date.now() / 1000)).toBeLessThan(60);
    expect((await gw.post('/profile/get', { user: token })).status).toBe(403);
  });

  it('When an operator revokes an issued token, then every call with it answers 403 and the console lists why', async () => {
    const token = 'nrelop_study_default_Revoked0123456789abcdefghijklm';
    await tokens.issue([token], 'study', 'default', 'operator@itinera.local');
    // An account that exists, so the only reason left to refuse a call is the revocation; revoked before this
    // gateway ever saw the token, so its "not revoked" belief (user_cache_ttl_s) has nothing to outlive.
    await createUsersTable(env.cql).register(token);
    expect(await tokens.revoke([token], 'operator@itinera.local', 'lost phone')).toEqual([token]);
    for (const path of ['/profile/create', '/usercache/put', '/usercache/get', '/pipeline/get_complete_ts']) {
      const res = await gw.post(path, { user: token, phone_to_server: [] });
      expect([path, res.status, res.body.error?.message]).toEqual([path, 403, 'invalid token: revoked by an operator']);
    }
    const row = await waitFor(() => refused(token), 10_000, 'the refusal');
    expect(row.reason).toBe('revoked by an operator');
  });

  it('When a phone hammers one refused token 200 times, then it is written once', async () => {
    const token = 'nrelop_study_default_Hammered456789abcdefghijklmnop';
    const before = refusedWrites;
    for (let round = 0; round < 10; round += 1) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => gw.post('/usercache/get', { user: token }).then((r) => r.status)),
      );
      expect(answers.every((s) => s === 403)).toBe(true);
    }
    const row = await waitFor(() => refused(token), 10_000, 'the refusal');
    // The row carries the tally of the one write: the first attempt.
    expect(row.attempts).toBe(1);
    expect(refusedWrites - before).toBe(1);
  });

  it('When a token is longer than any real one, then the first 128 characters of what the phone sent are listed', async () => {
    const token = 'nrelop_study_default_' + 'L'.repeat(600);
    expect((await gw.post('/profile/create', { user: token })).status).toBe(403);
    const row = await waitFor(() => refused(token.slice(0, 128)), 10_000, 'the refusal');
    expect(row.reason).toBe('longer than 512 characters');
  });

  it('When the gateway runs in secret mode, then a token without the secret prefix is listed as refused', async () => {
    // A short user_cache_ttl_s, which is also how long the gateway believes a token is not revoked.
    const config = {
      ...env.config,
      webserver: {
        ...env.config.webserver,
        auth: 'secret' as const,
        secretPrefixes: ['Zq8secret'],
        userCacheTtlMs: 300,
      },
    };
    const secretGw = await startGateway({ ...env, config }, { config });
    try {
      expect((await secretGw.post('/profile/create', { user: 'Zq8wrong_participant_7' })).status).toBe(403);
      const row = await waitFor(() => refused('Zq8wrong_participant_7'), 10_000, 'the refusal');
      expect(row.reason).toBe('no accepted secret prefix');
      // A revocation holds in this mode too: a token in use is refused once the gateway's belief in it expires.
      const user = { user: 'Zq8secret_participant_8' };
      expect((await secretGw.post('/profile/create', user)).status).toBe(200);
      expect((await secretGw.post('/usercache/get', user)).status).toBe(200);
      await tokens.revoke([user.user], 'operator@itinera.local', 'left the study');
      await waitFor(
        async () => ((await secretGw.post('/usercache/get', user)).status === 403 ? true : undefined),
        10_000,
        'the revoked token refused',
      );
      expect((await secretGw.post('/profile/create', user)).status).toBe(403);
    } finally {
      await secretGw.close();
    }
  });
});
