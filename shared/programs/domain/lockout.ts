import { phonesMakeTokens, type DeploymentConfig } from './deployment-config.js';
import { opcodeMembership } from './opcode.js';

/**
 * Who a new version of a program's configuration would shut out. The gateway answers a token its program refuses
 * with 403, which the app reads as "unknown user": the phone signs out and drops the entries it has not sent. So a
 * version that refuses tokens the current one admits is a decision to take knowingly, not a side effect of an edit.
 * Suspending a subgroup (`opcode.suspended_subgroups`) keeps its phones admitted and is never a lockout.
 */

/** Participants the new version would refuse, by why. */
export interface Lockout {
  /** By the subgroup their token names: subgroups the new version no longer has. */
  subgroups: ReadonlyMap<string, number>;
  /** Participants who joined with a token their phone made, when the new version takes only issued tokens. */
  selfMade: number;
}

/** Whether the new version takes only issued tokens where the current one let phones make their own. */
export function closesSelfMadeTokens(current: DeploymentConfig, next: DeploymentConfig): boolean {
  return phonesMakeTokens(current) && !phonesMakeTokens(next);
}

/**
 * Whether the new version could refuse a token the current one admits, before anyone is counted: it takes only
 * issued tokens where phones made their own, it adds `opcode` (which refuses short tokens and unlisted subgroups), or
 * it drops a subgroup the current one has. False means no participant can be locked out, whoever they are.
 */
export function mayLockOut(current: DeploymentConfig, next: DeploymentConfig): boolean {
  if (closesSelfMadeTokens(current, next)) return true;
  if (!next.opcode) return false;
  if (!current.opcode) return true;
  // A probe token per subgroup of the current version: the token's other parts are the same under both.
  return (current.opcode.subgroups ?? ['default']).some(
    (subgroup) => typeof opcodeMembership(`nrelop_p_${subgroup}_probe`, next) === 'string',
  );
}

/**
 * The participants (their tokens) that the current version admits and the new one refuses; undefined when there are
 * none. `issued` holds those of the tokens an operator issued: it is only read when the new version takes issued
 * tokens only.
 */
export function lockoutOf(
  current: DeploymentConfig,
  next: DeploymentConfig,
  tokens: Iterable<string>,
  issued: ReadonlySet<string>,
): Lockout | undefined {
  const closes = closesSelfMadeTokens(current, next);
  const subgroups = new Map<string, number>();
  let selfMade = 0;
  for (const token of tokens) {
    // Already refused today: the new version changes nothing for this phone.
    if (typeof opcodeMembership(token, current) === 'string') continue;
    if (typeof opcodeMembership(token, next) === 'string') {
      const subgroup = token.split('_')[2] || 'default';
      subgroups.set(subgroup, (subgroups.get(subgroup) ?? 0) + 1);
    } else if (closes && !issued.has(token)) selfMade += 1;
  }
  return subgroups.size > 0 || selfMade > 0 ? { subgroups, selfMade } : undefined;
}

function participants(n: number): string {
  return n === 1 ? '1 participant' : `${n} participants`;
}

/** The refusal an operator reads: who would be shut out, and the way that keeps them. */
export function lockoutMessage(program: string, lockout: Lockout | 'uncounted'): string {
  const why =
    lockout === 'uncounted'
      ? ['it refuses tokens the current version admits, and its participants could not be counted here']
      : [
          ...[...lockout.subgroups].map(
            ([subgroup, n]) => `${participants(n)} of subgroup "${subgroup}", which it no longer has`,
          ),
          ...(lockout.selfMade > 0
            ? [`${participants(lockout.selfMade)} whose phones made their tokens, as it takes only issued tokens`]
            : []),
        ];
  return (
    `program ${program}: this version would lock out ${why.join(', and ')}; their phones would be refused (403) ` +
    'and sign out. To pause a subgroup, list it in opcode.suspended_subgroups instead; to save it anyway, force it'
  );
}
