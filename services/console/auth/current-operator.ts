import type Koa from 'koa';
import type { EndedSessions } from './ended-sessions.js';
import { accessFromClaims, emailClaim, type RoleRules } from './roles.js';
import { signedIn, type ConsoleOperator, type SignedInClaims } from './session.js';

/** Who the session belongs to and what they may do now, or undefined: no session, a logged-out one, or no access. */
export type CurrentOperator = (ctx: Koa.Context) => Promise<ConsoleOperator | undefined>;

/**
 * The person behind a request, worked out at every request: their session must not have been ended by a logout
 * (anywhere), and their role and programs come from the claims of their sign-in under the console's configuration as
 * it is now, not as it was at login.
 */
export function currentOperator(rules: RoleRules, ended: EndedSessions): CurrentOperator {
  return async (ctx) => {
    const session = signedIn(ctx);
    if (session === undefined || (await ended.hasEnded(session.sessionId))) return undefined;
    const email = emailClaim(session.claims);
    const access = accessFromClaims(session.claims, rules);
    if (email === undefined || access === undefined) return undefined;
    const { sessionId, csrfToken } = session;
    return access.programs === undefined
      ? { email, role: access.role, csrfToken, sessionId }
      : { email, role: access.role, programs: access.programs, csrfToken, sessionId };
  };
}

/**
 * The claims a session keeps of a sign-in: only what the role rules read, and of the groups only those the
 * configuration names (a directory can put hundreds in the claim, and a cookie holds 4 KB).
 */
export function claimsToKeep(claims: Readonly<Record<string, unknown>>, rules: RoleRules): SignedInClaims {
  const kept: SignedInClaims = { email: emailClaim(claims) ?? '' };
  // Whatever the provider sent is kept as what it means: only `true` is a verified e-mail ("false" as text is not).
  if (claims['email_verified'] !== undefined) kept.email_verified = claims['email_verified'] === true;
  const named = new Set([
    ...rules.readerGroups,
    ...rules.operatorGroups,
    ...Object.values(rules.programAdminGroups).flat(),
  ]);
  const groups = claims[rules.groupClaim];
  const list = typeof groups === 'string' ? [groups] : Array.isArray(groups) ? groups : [];
  kept[rules.groupClaim] = list.filter((g): g is string => typeof g === 'string' && named.has(g));
  return kept;
}
