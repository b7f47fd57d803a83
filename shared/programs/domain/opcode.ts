import type { DeploymentConfig } from './deployment-config.js';

/**
 * Tokens in OpenPATH's grammar, "opcodes": `nrelop_<program>_<subgroup>[_test]_<random>`. The phone makes them (or
 * an operator issues them) and e-mission's server reads the program and subgroup back by splitting on "_".
 */
const PREFIX = 'nrelop_';

/** The program an opcode names (empty when it names none), or undefined for a token of any other shape. */
export function opcodeProgram(token: string): string | undefined {
  if (!token.startsWith(PREFIX)) return undefined;
  return token.split('_')[1] ?? '';
}

export interface OpcodeMembership {
  subgroup: string;
  /** `_test` after the subgroup: a tester, left out of the program's figures unless its metrics include them. */
  tester: boolean;
}

/**
 * The subgroup a token joins, by e-mission's rule (`getSubgroupFromToken`): a document with `opcode` needs a token
 * of at least four parts whose third is one of `opcode.subgroups`, or `default` when the list is absent. A document
 * without `opcode` takes any token, in subgroup `default`. A string is the refusal's reason.
 */
export function opcodeMembership(token: string, config: DeploymentConfig): OpcodeMembership | string {
  const parts = token.split('_');
  const tester = parts.length >= 5 && parts[3] === 'test';
  if (!config.opcode) return { subgroup: parts[2] || 'default', tester };
  if (parts.length <= 3)
    return `not enough parts in the token: expected nrelop_<program>_<subgroup>_<random>, found ${parts.length}`;
  const subgroup = parts[2] ?? '';
  const subgroups = config.opcode.subgroups;
  if (subgroups && !subgroups.includes(subgroup))
    return `invalid subgroup "${subgroup}": not in the program's subgroups (${subgroups.join(', ')})`;
  if (!subgroups && subgroup !== 'default')
    return `the program has no subgroups, but the token's subgroup "${subgroup}" is not "default"`;
  return { subgroup, tester };
}

/** The program a participant's token puts them in (undefined: the implicit program), and whether they test. */
export function cohortOf(token: string): { program: string | undefined; tester: boolean } {
  const program = opcodeProgram(token);
  const parts = token.split('_');
  return { program, tester: program !== undefined && parts.length >= 5 && parts[3] === 'test' };
}
