import { describe, expect, it } from 'vitest';
import { accessFromClaims, adminPrograms, roleFromClaims, type RoleRules } from './roles.js';

const byEmail: RoleRules = {
  emailVerified: 'required',
  readerEmails: ['reader@itinera.local'],
  operatorEmails: ['Operator@Itinera.local'],
  groupClaim: 'groups',
  readerGroups: [],
  operatorGroups: [],
  programAdminEmails: {},
  programAdminGroups: {},
};
const byGroup: RoleRules = {
  ...byEmail,
  readerEmails: [],
  operatorEmails: [],
  readerGroups: ['itinera-readers'],
  operatorGroups: ['itinera-operators'],
};

describe('roleFromClaims', () => {
  it('When the e-mail is listed, then it earns that role, whatever its case', () => {
    expect(roleFromClaims({ email: 'OPERATOR@itinera.local', email_verified: true }, byEmail)).toBe('operator');
    expect(roleFromClaims({ email: 'reader@itinera.local', email_verified: true }, byEmail)).toBe('reader');
  });

  it('When the e-mail is in no list, then nobody gets in, unless readers list `*`', () => {
    expect(roleFromClaims({ email: 'stranger@example.org', email_verified: true }, byEmail)).toBeUndefined();
    expect(
      roleFromClaims({ email: 'stranger@example.org', email_verified: true }, { ...byEmail, readerEmails: ['*'] }),
    ).toBe('reader');
  });

  it('When the provider says the e-mail is not verified, then the e-mail lists do not count', () => {
    expect(roleFromClaims({ email: 'operator@itinera.local', email_verified: false }, byEmail)).toBeUndefined();
    expect(roleFromClaims({ email: 'x@example.org', email_verified: false }, { ...byEmail, readerEmails: ['*'] })).toBe(
      undefined,
    );
  });

  it('When the provider sends no email_verified claim, then the e-mail counts only where the configuration says `when_sent`', () => {
    const unmarked = { email: 'operator@itinera.local' };
    expect(roleFromClaims(unmarked, byEmail)).toBeUndefined();
    expect(roleFromClaims(unmarked, { ...byEmail, readerEmails: ['*'] })).toBeUndefined();
    expect(roleFromClaims(unmarked, { ...byEmail, emailVerified: 'when_sent' })).toBe('operator');
    expect(roleFromClaims({ ...unmarked, email_verified: false }, { ...byEmail, emailVerified: 'when_sent' })).toBe(
      undefined,
    );
    // Any other value than true is no verification (a provider sending "true" as text is not trusted).
    expect(roleFromClaims({ ...unmarked, email_verified: 'true' }, byEmail)).toBeUndefined();
    // Groups are the provider's own assertion: they count without it.
    expect(roleFromClaims({ ...unmarked, groups: ['itinera-readers'] }, byGroup)).toBe('reader');
  });

  it('When a group is listed, then it earns the role, operator winning, from a list or a single string', () => {
    expect(roleFromClaims({ email: 'a@b.c', email_verified: true, groups: ['x', 'itinera-operators'] }, byGroup)).toBe(
      'operator',
    );
    expect(
      roleFromClaims(
        { email: 'a@b.c', email_verified: true, groups: ['itinera-readers', 'itinera-operators'] },
        byGroup,
      ),
    ).toBe('operator');
    expect(roleFromClaims({ email: 'a@b.c', email_verified: true, groups: 'itinera-readers' }, byGroup)).toBe('reader');
    expect(
      roleFromClaims(
        { email: 'a@b.c', email_verified: true, roles: ['itinera-readers'] },
        { ...byGroup, groupClaim: 'roles' },
      ),
    ).toBe('reader');
    expect(roleFromClaims({ email: 'a@b.c', email_verified: true, groups: ['other'] }, byGroup)).toBeUndefined();
  });

  it('When there is no e-mail claim, then nobody gets in, even in a listed group', () => {
    expect(roleFromClaims({ groups: ['itinera-operators'] }, byGroup)).toBeUndefined();
  });
});

describe('accessFromClaims', () => {
  const rules: RoleRules = {
    ...byEmail,
    readerEmails: ['*'],
    programAdminEmails: { 'study-a': ['Alice@Example.org'], 'study-b': ['alice@example.org', 'bob@example.org'] },
    programAdminGroups: { 'study-c': ['c-admins'] },
  };

  it('When the e-mail or a group names programs, then the person is an operator of those programs only, even with readers at *', () => {
    expect(accessFromClaims({ email: 'alice@example.org', email_verified: true }, rules)).toEqual({
      role: 'operator',
      programs: ['study-a', 'study-b'],
    });
    expect(accessFromClaims({ email: 'carol@example.org', email_verified: true, groups: ['c-admins'] }, rules)).toEqual(
      {
        role: 'operator',
        programs: ['study-c'],
      },
    );
    expect(adminPrograms({ email: 'bob@example.org', email_verified: true, groups: 'c-admins' }, rules)).toEqual([
      'study-b',
      'study-c',
    ]);
  });

  it('When the person is a deployment operator, or only a reader, then the scope is the whole deployment', () => {
    expect(
      accessFromClaims(
        { email: 'operator@itinera.local', email_verified: true },
        { ...rules, programAdminEmails: { x: ['operator@itinera.local'] } },
      ),
    ).toEqual({
      role: 'operator',
      programs: undefined,
    });
    expect(accessFromClaims({ email: 'dave@example.org', email_verified: true }, rules)).toEqual({
      role: 'reader',
      programs: undefined,
    });
    expect(accessFromClaims({ email: 'dave@example.org', email_verified: true }, byEmail)).toBeUndefined();
  });

  it('When the e-mail is not verified or missing, then admin lists by e-mail do not count, and nothing counts without one', () => {
    expect(adminPrograms({ email: 'alice@example.org', email_verified: false }, rules)).toEqual([]);
    expect(adminPrograms({ groups: ['c-admins'] }, rules)).toEqual([]);
  });
});
