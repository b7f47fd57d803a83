import type Koa from 'koa';
import { describe, expect, it } from 'vitest';
import { claimsToKeep, currentOperator } from './current-operator.js';
import { createEndedSessionsInMemory } from './ended-sessions.js';
import type { RoleRules } from './roles.js';
import type { SignedIn } from './session.js';

const rules: RoleRules = {
  // Sessions here hold the claims as the tests wrote them, most without email_verified.
  emailVerified: 'when_sent',
  readerEmails: [],
  operatorEmails: ['ana@example.org'],
  groupClaim: 'groups',
  readerGroups: ['readers'],
  operatorGroups: [],
  programAdminEmails: { alpha: ['bo@example.org'] },
  programAdminGroups: {},
};

/** A request whose (already verified) session cookie holds this sign-in. */
const requestOf = (session: SignedIn) => ({ session }) as unknown as Koa.Context;
const signIn = (claims: SignedIn['claims'], sessionId = 's1'): SignedIn => ({ sessionId, claims, csrfToken: 'c' });

describe('the person behind a request', () => {
  it('When the configuration changes after a login, then the same cookie gets what the configuration says now', async () => {
    const ended = createEndedSessionsInMemory();
    const ana = requestOf(signIn({ email: 'ana@example.org', groups: ['readers'] }));
    expect(await currentOperator(rules, ended)(ana)).toMatchObject({ email: 'ana@example.org', role: 'operator' });
    const demoted = { ...rules, operatorEmails: [] };
    expect(await currentOperator(demoted, ended)(ana)).toMatchObject({ role: 'reader' });
    const removed = { ...demoted, readerGroups: [] };
    expect(await currentOperator(removed, ended)(ana)).toBeUndefined();
    const bo = requestOf(signIn({ email: 'bo@example.org' }));
    expect(await currentOperator(rules, ended)(bo)).toMatchObject({ role: 'operator', programs: ['alpha'] });
    expect(await currentOperator({ ...rules, programAdminEmails: {} }, ended)(bo)).toBeUndefined();
  });

  it('When a session was ended by a logout, then a copy of its cookie is nobody', async () => {
    const ended = createEndedSessionsInMemory();
    const current = currentOperator(rules, ended);
    const copy = requestOf(signIn({ email: 'ana@example.org' }, 'ended-one'));
    expect(await current(copy)).toBeDefined();
    await ended.end('ended-one');
    expect(await current(copy)).toBeUndefined();
    expect(await current(requestOf(signIn({ email: 'ana@example.org' }, 'another')))).toBeDefined();
  });

  it('When the provider says the e-mail is not verified, then the e-mail earns nothing', async () => {
    const unverified = requestOf(signIn({ email: 'ana@example.org', email_verified: false }));
    expect(await currentOperator(rules, createEndedSessionsInMemory())(unverified)).toBeUndefined();
  });

  it('When a sign-in is kept, then only the e-mail, its verification and the groups the configuration names stay', () => {
    const kept = claimsToKeep(
      { email: 'Ana@Example.org', email_verified: true, name: 'Ana', groups: ['readers', 'staff', 'all-hands'] },
      rules,
    );
    expect(kept).toEqual({ email: 'ana@example.org', email_verified: true, groups: ['readers'] });
  });

  it('When the provider sends email_verified as anything but true, then the session keeps it as not verified', async () => {
    // With `when_sent`, an absent claim would count: "false" as text must not become an absent claim.
    for (const sent of ['false', 'true', 0, null]) {
      const kept = claimsToKeep({ email: 'ana@example.org', email_verified: sent }, rules);
      expect(kept.email_verified, JSON.stringify(sent)).toBe(false);
      const session = requestOf(signIn(kept));
      expect(
        await currentOperator(rules, createEndedSessionsInMemory())(session),
        JSON.stringify(sent),
      ).toBeUndefined();
    }
  });
});
