import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cql } from '../cassandra/index.js';
import { createTestEnv, type TestEnv } from '../../test/helpers/test-env.js';
import { createConsoleTokensTable, REFUSED_TOKENS_DAYS, type ConsoleTokensTable } from './console-tokens.js';

let env: TestEnv;
let table: ConsoleTokensTable;
beforeAll(async () => {
  env = await createTestEnv();
  table = createConsoleTokensTable(env.cql);
});
afterAll(async () => {
  await env?.dispose();
});

const nowS = () => Date.now() / 1000;

describe('console tokens', () => {
  it('When tokens are issued, then they are issued (with program, subgroup, author) and others are not', async () => {
    await table.issue(['nrelop_study_g1_aaaa', 'nrelop_study_g1_bbbb'], 'study', 'g1', 'operator@itinera.local');
    // A table of its own, so the answers come from Cassandra, not from the cache `issue` filled.
    const fresh = createConsoleTokensTable(env.cql);
    expect(await fresh.isIssued('nrelop_study_g1_aaaa')).toBe(true);
    expect(await fresh.isIssued('nrelop_study_g1_bbbb')).toBe(true);
    expect(await fresh.isIssued('nrelop_study_g1_cccc')).toBe(false);
    const row = (
      await env.cql.read('SELECT program, subgroup, created_at, created_by FROM issued_tokens WHERE user_token = ?', [
        'nrelop_study_g1_aaaa',
      ])
    ).rows[0]!;
    expect([row['program'], row['subgroup'], row['created_by']]).toEqual(['study', 'g1', 'operator@itinera.local']);
    expect(Math.abs((row['created_at'] as Date).getTime() - Date.now())).toBeLessThan(60_000);
  });

  it('When isIssued is asked again, then a positive is cached, and a negative only briefly', async () => {
    let reads = 0;
    const counted = { ...env.cql, read: (...args: Parameters<Cql['read']>) => ((reads += 1), env.cql.read(...args)) };
    const cached = createConsoleTokensTable(counted as Cql, { notIssuedTtlMs: 200 });
    await table.issue(['nrelop_study_g1_later'], 'study', 'g1', 'op');
    for (let i = 0; i < 3; i += 1) expect(await cached.isIssued('nrelop_study_g1_later')).toBe(true);
    expect(reads).toBe(1);
    for (let i = 0; i < 3; i += 1) expect(await cached.isIssued('nrelop_study_g1_unknown')).toBe(false);
    expect(reads).toBe(2);
    // Issued meanwhile (by the console, another process): the negative expires and the token is accepted.
    await table.issue(['nrelop_study_g1_unknown'], 'study', 'g1', 'op');
    await new Promise((r) => setTimeout(r, 250));
    expect(await cached.isIssued('nrelop_study_g1_unknown')).toBe(true);
    expect(reads).toBe(3);
  });

  it('When a token is revoked, then another process sees it within its "not revoked" time and for good after', async () => {
    let reads = 0;
    const counted = { ...env.cql, read: (...args: Parameters<Cql['read']>) => ((reads += 1), env.cql.read(...args)) };
    const gateway = createConsoleTokensTable(counted as Cql, { notRevokedTtlMs: 200 });
    expect(await gateway.isRevoked('nrelop_study_g1_kept')).toBe(false);
    expect(await gateway.isRevoked('nrelop_study_g1_kept')).toBe(false);
    expect(reads).toBe(1);
    expect(await table.revoke(['nrelop_study_g1_kept', 'nrelop_study_g1_kept'], 'op@itinera.local', 'lost')).toEqual([
      'nrelop_study_g1_kept',
    ]);
    await new Promise((r) => setTimeout(r, 250));
    for (let i = 0; i < 3; i += 1) expect(await gateway.isRevoked('nrelop_study_g1_kept')).toBe(true);
    await new Promise((r) => setTimeout(r, 250));
    expect(await gateway.isRevoked('nrelop_study_g1_kept')).toBe(true);
    expect(reads).toBe(2);
    // A second revocation changes nothing of the first.
    expect(await table.revoke(['nrelop_study_g1_kept'], 'other@itinera.local', 'again')).toEqual([]);
    const row = (await table.listRevoked()).find((r) => r.token === 'nrelop_study_g1_kept');
    expect(row).toMatchObject({ revokedBy: 'op@itinera.local', reason: 'lost' });
    expect(Math.abs(row!.revokedTs - nowS())).toBeLessThan(60);
  });

  it('When refusals are recorded, then listRefused shows one row per token, newest first, summed over the days', async () => {
    // Times within today's and yesterday's UTC days, whatever the time of day the test runs.
    const today = Math.floor(nowS() / 86_400) * 86_400 + 20;
    const yesterday = today - 86_400;
    await table.recordRefusal('nrelop_study_g1_typo', 'not in the token list, nor issued', yesterday + 60, {
      attempts: 3,
      firstTs: yesterday,
    });
    await table.recordRefusal('nrelop_study_g1_typo', 'not in the token list, nor issued', today - 10, {
      attempts: 2,
      firstTs: today - 15,
    });
    await table.recordRefusal('x'.repeat(300), 'longer than 512 characters', today - 5);
    await table.recordRefusal('old', 'no accepted secret prefix', today - 3 * 86_400);

    const rows = await table.listRefused(2);
    expect(rows.map((r) => r.token)).toEqual(['x'.repeat(128), 'nrelop_study_g1_typo']);
    expect(rows[0]).toMatchObject({ attempts: 1, reason: 'longer than 512 characters' });
    expect(rows[0]!.firstTs).toBeCloseTo(today - 5, 2);
    expect(rows[1]).toMatchObject({ attempts: 5, reason: 'not in the token list, nor issued' });
    expect(rows[1]!.firstTs).toBeCloseTo(yesterday, 2);
    expect(rows[1]!.lastTs).toBeCloseTo(today - 10, 2);

    expect((await table.listRefused(7)).map((r) => r.token)).toContain('old');
    expect(await table.listRefused(2, { maxRows: 1 })).toHaveLength(1);
  });

  it('When the same refusal is written again, then the row is the same (an idempotent upsert)', async () => {
    const ts = nowS();
    await table.recordRefusal('nrelop_study_g1_again', 'r', ts, { attempts: 4, firstTs: ts - 1 });
    await table.recordRefusal('nrelop_study_g1_again', 'r', ts, { attempts: 4, firstTs: ts - 1 });
    const again = (await table.listRefused(1)).filter((r) => r.token === 'nrelop_study_g1_again');
    expect(again).toHaveLength(1);
    expect(again[0]!.attempts).toBe(4);
  });

  it('When the schema is applied, then refused_tokens expires its rows after 30 days', async () => {
    const rs = await env.cql.read(
      'SELECT default_time_to_live FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?',
      [env.config.cassandra.keyspace, 'refused_tokens'],
    );
    expect(rs.rows[0]?.['default_time_to_live']).toBe(REFUSED_TOKENS_DAYS * 86_400);
    const issued = await env.cql.read(
      'SELECT default_time_to_live FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?',
      [env.config.cassandra.keyspace, 'issued_tokens'],
    );
    expect(issued.rows[0]?.['default_time_to_live']).toBe(0);
  });
});
