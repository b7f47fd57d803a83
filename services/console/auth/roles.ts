import type { Config } from '../../../shared/config/index.js';
import type { ConsoleRole } from './session.js';

export type RoleRules = Pick<
  Config['console']['oidc'],
  'readerEmails' | 'operatorEmails' | 'groupClaim' | 'readerGroups' | 'operatorGroups'
>;

/**
 * The console role the provider's claims earn, or undefined: not allowed in. Operator wins over reader.
 * E-mails compare case-insensitively (nobody types them consistently) and count only when the provider has not
 * said `email_verified: false` (some, like Entra ID, never send the claim, so its absence is accepted); groups
 * count whatever the e-mail, since the provider asserts membership itself. `*` in readerEmails lets in every
 * e-mail; it is deliberately not honoured for operators. Without an e-mail claim nobody gets in: it is what
 * names the person in the session and in the audit log.
 */
export function roleFromClaims(claims: Readonly<Record<string, unknown>>, rules: RoleRules): ConsoleRole | undefined {
  const email = emailClaim(claims);
  const trustedEmail = claims['email_verified'] === false ? undefined : email;
  const groups = groupsClaim(claims[rules.groupClaim]);
  const listed = (emails: readonly string[]) =>
    trustedEmail !== undefined && emails.some((e) => e.trim().toLowerCase() === trustedEmail);
  const member = (allowed: readonly string[]) => groups.some((g) => allowed.includes(g));

  if (email === undefined) return undefined;
  if (listed(rules.operatorEmails) || member(rules.operatorGroups)) return 'operator';
  if (listed(rules.readerEmails) || (trustedEmail !== undefined && rules.readerEmails.includes('*'))) return 'reader';
  if (member(rules.readerGroups)) return 'reader';
  return undefined;
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
