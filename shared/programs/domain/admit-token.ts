import { phonesMakeTokens, type DeploymentConfig } from './deployment-config.js';
import { opcodeMembership, opcodeProgram } from './opcode.js';

/** A program's configuration as served: the checked document and its version. */
export interface ServedConfig {
  program: string;
  config: DeploymentConfig;
}

/** A token that belongs to a program, with what that program says about it. */
export interface ProgramMember {
  kind: 'member';
  program: string;
  subgroup: string;
  tester: boolean;
  /** In `opcode.suspended_subgroups`: puts are answered and stored nowhere, as e-mission does. */
  suspended: boolean;
  /** Only tokens an operator issued (or listed) are accepted: the program does not let phones make their own. */
  issuedOnly: boolean;
  /** The program is closed (`itinera.closed`): its message, else undefined. Registration and puts are refused. */
  closed: string | undefined;
}

export interface ProgramRefusal {
  kind: 'refused';
  program: string;
  reason: string;
}

function closedMessage({ program, config }: ServedConfig): string | undefined {
  if (config.itinera?.closed !== true) return undefined;
  return config.itinera.closed_message ?? `program ${program} is closed: it takes no new participants and no new data`;
}

/**
 * Which program a token belongs to, under the programs the deployment serves. A deployment without programs is one
 * implicit program, and so is any token outside the opcode grammar: for those the answer is undefined and the
 * deployment's own auth mode decides, as before programs existed. An opcode naming a program the deployment does not
 * serve is refused, as is one whose subgroup its program does not have.
 */
export function admitToken(
  token: string,
  programs: ReadonlyMap<string, ServedConfig>,
  /** Whether the deployment has programs: false when `programs` is empty, unless some could not be read. */
  servesPrograms = programs.size > 0,
): ProgramMember | ProgramRefusal | undefined {
  if (!servesPrograms) return undefined;
  const program = opcodeProgram(token);
  if (program === undefined) return undefined;
  const served = programs.get(program);
  if (!served) return { kind: 'refused', program, reason: `unknown program "${program}"` };
  const membership = opcodeMembership(token, served.config);
  if (typeof membership === 'string') return { kind: 'refused', program, reason: membership };
  return {
    kind: 'member',
    program,
    ...membership,
    suspended: served.config.opcode?.suspended_subgroups?.includes(membership.subgroup) ?? false,
    issuedOnly: !phonesMakeTokens(served.config),
    closed: closedMessage(served),
  };
}
