import { describe, expect, it } from 'vitest';
import { DependencyUnavailableError } from '../errors/index.js';
import type { ProgramConfigRow, ProgramConfigsTable } from '../tables/index.js';
import { createProgramDirectory } from './program-directory.js';

/** The table as the gateway reads it: the newest rows, or an outage when `down`. */
function table(initial: Record<string, object | string>) {
  const state = { docs: initial, down: false, reads: 0 };
  const rows = (): ProgramConfigRow[] =>
    Object.entries(state.docs).map(([program, doc]) => ({
      program,
      version: typeof doc === 'string' ? 1 : (doc as { version: number }).version,
      // A string is stored as it is: text that is not even JSON.
      document: typeof doc === 'string' ? doc : JSON.stringify(doc),
      changedAt: new Date(0),
      changedBy: 'operator',
      note: '',
    }));
  const t: ProgramConfigsTable = {
    add: async () => true,
    latest: async () => undefined,
    history: async () => [],
    async latestOfEach() {
      state.reads += 1;
      if (state.down) throw new DependencyUnavailableError('Cassandra did not answer');
      return rows();
    },
  };
  return { t, state };
}

const ebike = (version: number) => ({ version, opcode: { autogen: true } });

describe('the programs a gateway serves', () => {
  it('When the first read fails, then the call fails as retriable; once read, programs are served', async () => {
    const { t, state } = table({ ebike: ebike(1) });
    state.down = true;
    const directory = createProgramDirectory(t);
    await expect(directory.admit('nrelop_ebike_default_abc')).rejects.toThrow(DependencyUnavailableError);
    state.down = false;
    expect(await directory.admit('nrelop_ebike_default_abc')).toMatchObject({ kind: 'member', program: 'ebike' });
  });

  it('When the refresh time has passed, then a call is answered from what was read while a new read runs', async () => {
    let clock = 0;
    const { t, state } = table({ ebike: ebike(1) });
    const directory = createProgramDirectory(t, { refreshMs: 1_000, now: () => clock });
    expect((await directory.config('ebike'))?.config.version).toBe(1);
    state.docs = { ebike: ebike(2) };
    clock = 500;
    expect((await directory.config('ebike'))?.config.version).toBe(1);
    expect(state.reads).toBe(1);
    clock = 1_000;
    expect((await directory.config('ebike'))?.config.version).toBe(1);
    await new Promise((r) => setImmediate(r));
    expect((await directory.config('ebike'))?.config.version).toBe(2);
    expect(directory.putReply('ebike', { deploymentConfigVersion: 1 })).toEqual({ deployment_config: ebike(2) });
  });

  it('When Cassandra stops answering later, then the programs last read are still served and the problem is told', async () => {
    let clock = 0;
    const problems: string[] = [];
    const { t, state } = table({ ebike: ebike(1) });
    const directory = createProgramDirectory(t, {
      refreshMs: 10,
      now: () => clock,
      onProblem: (m) => problems.push(m),
    });
    await directory.config('ebike');
    state.down = true;
    clock = 100;
    expect(await directory.admit('nrelop_ebike_default_abc')).toMatchObject({ kind: 'member' });
    await new Promise((r) => setImmediate(r));
    expect(await directory.admit('nrelop_ebike_default_abc')).toMatchObject({ kind: 'member' });
    expect(problems.some((p) => p.includes('not read again'))).toBe(true);
  });

  it('When the first read fails, then a token that names no program is admitted as before; a program token fails as retriable', async () => {
    const { t, state } = table({ ebike: ebike(1) });
    state.down = true;
    const directory = createProgramDirectory(t);
    expect(await directory.admit('someone@example.org')).toBeUndefined();
    expect(await directory.admit('a-token-of-the-token-list')).toBeUndefined();
    await expect(directory.admit('nrelop_ebike_default_abc')).rejects.toThrow(DependencyUnavailableError);
  });

  it('When one stored document no longer passes the schema or is not JSON, then only its program is unavailable (retriable), the others are served, and the problem is told', async () => {
    const problems: string[] = [];
    const { t } = table({
      ebike: ebike(1),
      old: { version: 1, opcode: { subgroups: ['a_b'] } },
      torn: '{"version": 1, "opco',
    });
    const directory = createProgramDirectory(t, { onProblem: (m) => problems.push(m) });
    expect(await directory.admit('nrelop_ebike_default_abc')).toMatchObject({ kind: 'member', program: 'ebike' });
    for (const program of ['old', 'torn']) {
      // Unavailable, not refused: a 403 would sign the phone out; a 503 has it try again later.
      await expect(directory.admit(`nrelop_${program}_default_abc`)).rejects.toThrow(DependencyUnavailableError);
      await expect(directory.config(program)).rejects.toThrow(/is unavailable/);
      expect(directory.putReply(program, { deploymentConfigVersion: 0 })).toEqual({});
    }
    expect(await directory.admit('nrelop_other_default_abc')).toMatchObject({ kind: 'refused' });
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(['program old', 'program torn']);
  });

  it('When every stored document is unreadable, then the deployment still has programs: another program is unknown', async () => {
    const { t } = table({ old: { version: 1, opcode: { subgroups: ['a_b'] } } });
    const directory = createProgramDirectory(t);
    expect(await directory.servesPrograms()).toBe(true);
    await expect(directory.admit('nrelop_old_default_abc')).rejects.toThrow(DependencyUnavailableError);
    expect(await directory.admit('nrelop_other_default_abc')).toMatchObject({ kind: 'refused' });
  });
});
