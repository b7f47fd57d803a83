import type { Config } from '../../../shared/config/index.js';
import type { ProgramScope } from '../scope/program-scope.js';
import type { ConsoleRole } from './session.js';

export type RoleRules = Pick<
  Config['console']['oidc'],
  | 'emailVerified'
  | 'readerEmails'
  | 'operatorEmails'
  | 'groupClaim'
  | 'readerGroups'
  | 'operatorGroups'
  | 'programAdminEmails'
  | 'programAdminGroups'
>;

/** What a login earns: a role, and the programs it holds in (undefined: the whole deployment). */
export interface ConsoleAccess {
  role: ConsoleRole;
  programs: ProgramScope;
}

/** What the role rules read of the provider's claims. */
interface Claimed {
  email: string | undefined;
  /** The e-mail, when it counts for a role: see `emailVerified`. */
  trustedEmail: string | undefined;
  groups: string[];
}

function claimed(claims: Readonly<Record<string, unknown>>, rules: RoleRules): Claimed {
  const email = emailClaim(claims);
  const verified = claims['email_verified'];
  const trusted = verified === true || (verified === undefined && rules.emailVerified === 'when_sent');
  return { email, trustedEmail: trusted ? email : undefined, groups: groupsClaim(claims[rules.groupClaim]) };
}

const listed = ({ trustedEmail }: Claimed, emails: readonly string[]) =>
  trustedEmail !== undefined && emails.some((e) => e.trim().toLowerCase() === trustedEmail);
const member = ({ groups }: Claimed, allowed: readonly string[]) => groups.some((g) => allowed.includes(g));

/**
 * The console role the provider's claims earn across the whole deployment, or undefined. Operator wins over reader.
 * E-mails compare case-insensitively (nobody types them consistently) and count only when the provider says
 * `email_verified: true`, or, with `email_verified: when_sent` (for providers such as Entra ID that never send the
 * claim), when it does not say false; groups count whatever the e-mail, since the provider asserts membership itself.
 * `*` in readerEmails lets in every e-mail; it is deliberately not honoured for operators. Without an e-mail claim
 * nobody gets in: it is what names the person in the session and in the audit log.
 */
export function roleFromClaims(claims: Readonly<Record<string, unknown>>, rules: RoleRules): ConsoleRole | undefined {
  const c = claimed(claims, rules);
  if (c.email === undefined) return undefined;
  if (listed(c, rules.operatorEmails) || member(c, rules.operatorGroups)) return 'operator';
  if (listed(c, rules.readerEmails) || (c.trustedEmail !== undefined && rules.readerEmails.includes('*')))
    return 'reader';
  if (member(c, rules.readerGroups)) return 'reader';
  return undefined;
}

/** The programs whose admin lists (by e-mail or group) name the person, sorted; none without an e-mail claim. */
export function adminPrograms(claims: Readonly<Record<string, unknown>>, rules: RoleRules): string[] {
  const c = claimed(claims, rules);
  if (c.email === undefined) return [];
  const programs = new Set<string>();
  for (const [program, emails] of Object.entries(rules.programAdminEmails))
    if (listed(c, emails)) programs.add(program);
  for (const [program, groups] of Object.entries(rules.programAdminGroups))
    if (member(c, groups)) programs.add(program);
  return [...programs].sort();
}

/**
 * What a login earns. A deployment operator works on everything. Otherwise a program's admin is an operator of
 * their programs and sees nothing else, even when the reader lists would let them read the whole deployment: with
 * `reader_emails: ["*"]` a reader's access would otherwise swallow every admin's. Anyone else gets the deployment
 * role the lists give (reader), or nothing.
 */
export function accessFromClaims(
  claims: Readonly<Record<string, unknown>>,
  rules: RoleRules,
): ConsoleAccess | undefined {
  const role = roleFromClaims(claims, rules);
  if (role === 'operator') return { role, programs: undefined };
  const programs = adminPrograms(claims, rules);
  if (programs.length > 0) return { role: 'operator', programs };
  return role === undefined ? undefined : { role, programs: undefined };
}

/** The e-mail the console knows the person by (sessions, audit lines), lower-cased; undefined when absent. */
export function emailClaim(claims: Readonly<Record<string, unknown>>): string | undefined {
  const email = claims['email'];
  return typeof email === 'string' && email.includes('@') ? email.trim().toLowerCase() : undefined;
}

/** Providers send groups as a list, and some (a single-valued mapper) as one string. */
function groupsClaim(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((g): g is string => typeof g === 'string') : [];
}
