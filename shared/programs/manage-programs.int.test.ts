import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, ValidationError } from '../errors/index.js';
import { createConsoleTokensTable, createProgramConfigsTable, createUsersTable } from '../tables/index.js';
import { seedLocations } from '../../test/helpers/reads.js';
import { runCli } from '../../test/helpers/pipeline.js';
import { createTestEnv, type TestEnv } from '../../test/helpers/test-env.js';
import { createProgramManager, type ProgramManager } from './manage-programs.js';
import { createProgramParticipants } from './program-participants.js';

let env: TestEnv;
let programs: ProgramManager;
const by = 'operator@itinera.test';
const doc = (version: number, extra: object = {}) => JSON.stringify({ version, opcode: { autogen: true }, ...extra });

beforeAll(async () => {
  env = await createTestEnv();
  programs = createProgramManager(createProgramConfigsTable(env.cql));
});
afterAll(async () => {
  await env?.dispose();
});

describe("a program's configuration, kept as versions", () => {
  it('When a program is created and updated, then show gives the newest and history every version with its author', async () => {
    await programs.create({ program: 'ebike', document: doc(1), by, note: 'launch' });
    await programs.update({
      program: 'ebike',
      document: doc(2, { min_app_version: '1.9.0' }),
      by: 'second@itinera.test',
    });
    expect(JSON.parse((await programs.show('ebike')).document)).toMatchObject({ version: 2, min_app_version: '1.9.0' });
    const history = await programs.history('ebike');
    expect(history.map((r) => [r.version, r.changedBy, r.note])).toEqual([
      [2, 'second@itinera.test', ''],
      [1, by, 'launch'],
    ]);
  });

  it('When an update does not raise the version, then it is refused and nothing is saved', async () => {
    await programs.create({ program: 'steady', document: doc(5), by });
    for (const version of [5, 4]) {
      const refused = programs.update({ program: 'steady', document: doc(version, { note: 'x' }), by });
      await expect(refused).rejects.toThrow(ConflictError);
      await expect(refused).rejects.toThrow(/not above the current version 5/);
    }
    expect(await programs.history('steady')).toHaveLength(1);
  });

  it('When a program is created twice, updated before it exists, or named with "_", then each is refused', async () => {
    await expect(programs.create({ program: 'steady', document: doc(9), by })).rejects.toThrow(ConflictError);
    await expect(programs.update({ program: 'ghost', document: doc(1), by })).rejects.toThrow(NotFoundError);
    await expect(programs.create({ program: 'two_parts', document: doc(1), by })).rejects.toThrow(ValidationError);
    await expect(programs.create({ program: 'bad', document: '{"version": "1"}', by })).rejects.toThrow(/version/);
    expect((await programs.list()).map((r) => r.program)).toEqual(['ebike', 'steady']);
  });

  it('When label options are given beside the document, then they are inlined in the saved version', async () => {
    const labels = { MODE: [{ value: 'walk', baseMode: 'WALKING' }] };
    await programs.create({
      program: 'inlined',
      document: doc(1, { label_options: 'https://example.org/labels.json' }),
      labelOptions: JSON.stringify(labels),
      by,
    });
    expect(JSON.parse((await programs.show('inlined')).document).label_options).toEqual(labels);
  });
});

describe('a version that would lock participants out', () => {
  it('When an update removes a subgroup participants are in or stops self-made tokens, then it is refused naming them, unless forced', async () => {
    const users = createUsersTable(env.cql, { cacheEntries: 1 });
    const issuedTokens = createConsoleTokensTable(env.cql, { notIssuedTtlMs: 0 });
    const manager = createProgramManager(createProgramConfigsTable(env.cql), {
      participants: createProgramParticipants(users, (token) => issuedTokens.isIssued(token)),
    });
    const opcode = (version: number, opcode: object) => JSON.stringify({ version, opcode });
    await manager.create({
      program: 'locks',
      document: opcode(1, { autogen: true, subgroups: ['city', 'campus'] }),
      by,
    });
    for (const token of ['nrelop_locks_city_x1', 'nrelop_locks_city_x2', 'nrelop_locks_campus_y1'])
      await users.register(token);
    await issuedTokens.issue(['nrelop_locks_campus_y1'], 'locks', 'campus', by);

    const withoutCity = manager.update({
      program: 'locks',
      document: opcode(2, { autogen: true, subgroups: ['campus'] }),
      by,
    });
    await expect(withoutCity).rejects.toThrow(ConflictError);
    await expect(withoutCity).rejects.toThrow(/2 participants of subgroup "city"/);
    const issuedOnly = manager.update({
      program: 'locks',
      document: opcode(2, { autogen: false, subgroups: ['city', 'campus'] }),
      by,
    });
    await expect(issuedOnly).rejects.toThrow(/2 participants whose phones made their tokens/);
    expect(await manager.history('locks')).toHaveLength(1);

    // Suspending is the way that keeps the phones; a forced version is saved as asked.
    const suspend = { autogen: true, subgroups: ['city', 'campus'], suspended_subgroups: ['city'] };
    await manager.update({ program: 'locks', document: opcode(2, suspend), by });
    await manager.update({
      program: 'locks',
      document: opcode(3, { autogen: true, subgroups: ['campus'] }),
      by,
      force: true,
    });
    expect(JSON.parse((await manager.show('locks')).document).opcode.subgroups).toEqual(['campus']);

    // Where participants cannot be counted, a version that could lock anyone out needs forcing.
    const uncounted = createProgramManager(createProgramConfigsTable(env.cql));
    await expect(uncounted.update({ program: 'locks', document: opcode(4, { autogen: false }), by })).rejects.toThrow(
      /could not be counted/,
    );
  });

  it('When the CLI updates a program so that participants are locked out, then it exits 1 saying who; --force saves it', async () => {
    await programs.create({
      program: 'cli-locks',
      document: JSON.stringify({ version: 1, opcode: { autogen: true } }),
      by,
    });
    await createUsersTable(env.cql, { cacheEntries: 1 }).register('nrelop_cli-locks_default_z1');
    const dir = mkdtempSync(join(tmpdir(), 'itinera-program-'));
    writeFileSync(join(dir, 'v2.json'), JSON.stringify({ version: 2, opcode: { autogen: false } }));
    const refused = await runCli(env, ['program', 'update', 'cli-locks', join(dir, 'v2.json')]).catch((e) => e);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/would lock out 1 participant whose phones made their tokens/);
    expect(await runCli(env, ['program', 'update', 'cli-locks', join(dir, 'v2.json'), '--force'])).toMatch(
      /^saved cli-locks\tversion 2\t/,
    );
  });
});

describe('npx itinera program', () => {
  it('When an operator creates, updates and lists from files, then the versions are saved; a stale version exits 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'itinera-program-'));
    const file = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    expect(await runCli(env, ['program', 'create', 'cli-study', file('v1.json', doc(1)), '--note', 'first'])).toMatch(
      /^saved cli-study\tversion 1\t/,
    );
    const stale = await runCli(env, ['program', 'update', 'cli-study', file('v1b.json', doc(1))]).catch((e) => e);
    expect(stale.status).toBe(1);
    expect(stale.stderr).toMatch(/version 1 is not above the current version 1/);
    await runCli(env, ['program', 'update', 'cli-study', file('v2.json', doc(2))]);
    expect(JSON.parse(await runCli(env, ['program', 'show', 'cli-study']))).toMatchObject({ version: 2 });
    expect(await runCli(env, ['program', 'list'])).toMatch(/^cli-study\tversion 2\t/m);
  });
});

describe('npx itinera program archive', () => {
  it("When a program is archived, then it is closed, its participants' data is exported with a receipt of digests, they are deleted, and another program's participant is untouched", async () => {
    const by = 'operator@itinera.test';
    await programs.create({ program: 'gone', document: doc(1), by });
    await programs.create({ program: 'stays', document: doc(1), by });
    const users = createUsersTable(env.cql, { cacheEntries: 1 });
    const DAY = 1_700_006_400;
    const uuids: Record<string, string> = {};
    for (const token of ['nrelop_gone_default_a1', 'nrelop_gone_default_a2', 'nrelop_stays_default_b1']) {
      uuids[token] = (await users.register(token)).user.uuid;
      await seedLocations(env.cql, uuids[token]!, DAY + 300, 48, 3600);
    }
    const out = mkdtempSync(join(tmpdir(), 'itinera-archive-'));
    const quick = { WEBSERVER_PROGRAM_REFRESH_S: '0.2' };
    const dry = await runCli(env, ['program', 'archive', 'gone', '--out', out], quick).catch((e) => e);
    expect(dry.status).toBe(1);
    expect(dry.stdout).toMatch(/would close program gone, export its 2 participants/);
    expect(await users.findByUuid(uuids['nrelop_gone_default_a1']!)).toBeDefined();

    const printed = await runCli(env, ['program', 'archive', 'gone', '--out', out, '--yes'], quick);
    expect(printed).toMatch(/archived program gone: \d+ files, 2 participants deleted/);
    const receiptName = readdirSync(out).find((f) => f.startsWith('receipt-'))!;
    const receipt = JSON.parse(readFileSync(join(out, receiptName), 'utf8'));
    expect(receipt.deleted.map((d: any) => d.uuid).sort()).toEqual(
      [uuids['nrelop_gone_default_a1'], uuids['nrelop_gone_default_a2']].sort(),
    );
    const ndjson = receipt.files.filter((f: any) => f.path.startsWith('ndjson/'));
    // Two days of hourly locations for each participant: two day files each.
    expect(ndjson).toHaveLength(4);
    for (const file of ndjson) {
      const bytes = readFileSync(join(out, file.path));
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(file.sha256);
      expect(bytes.length).toBe(file.bytes);
    }
    const exported = ndjson.flatMap((f: any) => readFileSync(join(out, f.path), 'utf8').trim().split('\n'));
    expect(exported).toHaveLength(96);
    expect(await users.findByUuid(uuids['nrelop_gone_default_a1']!)).toBeUndefined();
    expect(await users.findByUuid(uuids['nrelop_stays_default_b1']!)).toBeDefined();
    expect(JSON.parse((await programs.show('gone')).document).itinera).toMatchObject({ closed: true });
  });
});
