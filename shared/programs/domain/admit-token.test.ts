import { describe, expect, it } from 'vitest';
import { admitToken, type ServedConfig } from './admit-token.js';
import type { DeploymentConfig } from './deployment-config.js';

function programs(entries: Record<string, Partial<DeploymentConfig>>): Map<string, ServedConfig> {
  return new Map(
    Object.entries(entries).map(([program, doc]) => [program, { program, config: { version: 1, ...doc } }]),
  );
}

const served = programs({
  ebike: { opcode: { autogen: true, subgroups: ['regular', 'paused'], suspended_subgroups: ['paused'] } },
  commute: { opcode: { autogen: false } },
  legacy: { intro: { program_or_study: 'study' } },
  ended: { itinera: { closed: true } },
  told: { itinera: { closed: true, closed_message: 'The study ended on 1 May.' } },
});

describe('which program a token belongs to', () => {
  it('When the deployment serves no program, then every token goes by its own auth mode', () => {
    expect(admitToken('nrelop_ebike_regular_abc', new Map())).toBeUndefined();
  });

  it('When a token is outside the opcode grammar, then the deployment auth mode decides', () => {
    for (const token of ['someone@example.org', 'nrelop', 'NRELOP_ebike_regular_abc'])
      expect(admitToken(token, served)).toBeUndefined();
  });

  it('When a token names a subgroup of its program, then it is a member of it, a tester when "_test" follows', () => {
    expect(admitToken('nrelop_ebike_regular_a1b2', served)).toEqual({
      kind: 'member',
      program: 'ebike',
      subgroup: 'regular',
      tester: false,
      suspended: false,
      issuedOnly: false,
      closed: undefined,
    });
    expect(admitToken('nrelop_ebike_regular_test_a1b2', served)).toMatchObject({ tester: true });
    expect(admitToken('nrelop_commute_default_a1b2', served)).toMatchObject({ subgroup: 'default', issuedOnly: true });
  });

  it('When the subgroup is suspended, then the member is marked suspended', () => {
    expect(admitToken('nrelop_ebike_paused_a1b2', served)).toMatchObject({ kind: 'member', suspended: true });
  });

  it('When a token names an unknown program, then it is refused naming the program', () => {
    expect(admitToken('nrelop_elsewhere_default_a1b2', served)).toEqual({
      kind: 'refused',
      program: 'elsewhere',
      reason: 'unknown program "elsewhere"',
    });
  });

  it('When an opcode names no program, then it is refused', () => {
    expect(admitToken('nrelop_', served)).toMatchObject({ kind: 'refused', reason: 'unknown program ""' });
    expect(admitToken('nrelop__regular_abc', served)).toMatchObject({ kind: 'refused' });
  });

  it("When a token names another program's subgroup, no subgroup, or not default without a list, then it is refused", () => {
    expect(admitToken('nrelop_commute_regular_a1b2', served)).toMatchObject({ kind: 'refused' });
    expect(admitToken('nrelop_ebike_unknown_a1b2', served)).toMatchObject({
      reason: expect.stringMatching(/invalid subgroup "unknown"/),
    });
    expect(admitToken('nrelop_ebike_regular', served)).toMatchObject({
      reason: expect.stringMatching(/not enough parts/),
    });
  });

  it('When the program is closed, then its members are marked with its message, or a plain one', () => {
    expect(admitToken('nrelop_ended_default_a1', served)).toMatchObject({
      kind: 'member',
      closed: 'program ended is closed: it takes no new participants and no new data',
    });
    expect(admitToken('nrelop_told_default_a1', served)).toMatchObject({ closed: 'The study ended on 1 May.' });
  });

  it('When the program has no opcode section, then any token of it is accepted, as e-mission does', () => {
    expect(admitToken('nrelop_legacy_whatever', served)).toMatchObject({ kind: 'member', issuedOnly: false });
  });
});
