import { describe, expect, it } from 'vitest';
import { parseDeploymentConfig, type DeploymentConfig } from './deployment-config.js';
import { lockoutMessage, lockoutOf, mayLockOut } from './lockout.js';

const config = (doc: object) => parseDeploymentConfig(JSON.stringify({ version: 1, ...doc })) as DeploymentConfig;

const twoGroups = config({ opcode: { autogen: true, subgroups: ['city', 'campus'] } });
const tokens = ['nrelop_bike_city_a1', 'nrelop_bike_city_a2', 'nrelop_bike_campus_b1', 'nrelop_bike_city_test_c1'];

describe('who a new version would lock out', () => {
  it('When a subgroup that participants are in is removed, then they are counted by subgroup', () => {
    const cityOnly = config({ opcode: { autogen: true, subgroups: ['campus'] } });
    expect(mayLockOut(twoGroups, cityOnly)).toBe(true);
    expect(lockoutOf(twoGroups, cityOnly, tokens, new Set())).toEqual({
      subgroups: new Map([['city', 3]]),
      selfMade: 0,
    });
  });

  it('When a subgroup is suspended, added, or removed with nobody in it, then nobody is locked out', () => {
    const suspended = config({
      opcode: { autogen: true, subgroups: ['city', 'campus'], suspended_subgroups: ['city'] },
    });
    const added = config({ opcode: { autogen: true, subgroups: ['city', 'campus', 'town'] } });
    expect(mayLockOut(twoGroups, suspended)).toBe(false);
    expect(mayLockOut(twoGroups, added)).toBe(false);
    const withoutCampus = config({ opcode: { autogen: true, subgroups: ['city'] } });
    expect(lockoutOf(twoGroups, withoutCampus, ['nrelop_bike_city_a1'], new Set())).toBeUndefined();
  });

  it('When autogen turns from true to false, then participants whose tokens were not issued are counted', () => {
    const issuedOnly = config({ opcode: { autogen: false, subgroups: ['city', 'campus'] } });
    expect(mayLockOut(twoGroups, issuedOnly)).toBe(true);
    expect(lockoutOf(twoGroups, issuedOnly, tokens, new Set(['nrelop_bike_city_a1']))).toEqual({
      subgroups: new Map(),
      selfMade: 3,
    });
    expect(lockoutOf(twoGroups, issuedOnly, ['nrelop_bike_city_a1'], new Set(['nrelop_bike_city_a1']))).toBeUndefined();
  });

  it('When autogen was already false, then turning it off again locks nobody out', () => {
    const before = config({ opcode: { autogen: false } });
    expect(mayLockOut(before, config({ opcode: { autogen: false }, min_app_version: '1.9.0' }))).toBe(false);
  });

  it('When a document without opcode gains one, then short tokens and other subgroups would be refused', () => {
    const study = config({ intro: { program_or_study: 'study' } });
    const withOpcode = config({ opcode: { autogen: true } });
    expect(mayLockOut(study, withOpcode)).toBe(true);
    expect(
      lockoutOf(study, withOpcode, ['nrelop_bike_city_a1', 'nrelop_bike_default_a2', 'nrelop_bike'], new Set()),
    ).toEqual({
      subgroups: new Map([
        ['city', 1],
        ['default', 1],
      ]),
      selfMade: 0,
    });
  });

  it('When the refusal is told, then it names each subgroup with its count, the self-made tokens, and suspension', () => {
    const message = lockoutMessage('bike', { subgroups: new Map([['city', 3]]), selfMade: 2 });
    expect(message).toMatch(/3 participants of subgroup "city"/);
    expect(message).toMatch(/2 participants whose phones made their tokens/);
    expect(message).toMatch(/opcode\.suspended_subgroups/);
  });
});
