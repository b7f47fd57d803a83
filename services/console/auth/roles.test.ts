import { describe, expect, it } from 'vitest';
import { roleFromClaims, type RoleRules } from './roles.js';

const byEmail: RoleRules = {
  readerEmails: ['reader@itinera.local'],
  operatorEmails: ['Operator@Itinera.local'],
  groupClaim: 'groups',
  readerGroups: [],
  operatorGroups: [],
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
    expect(roleFromClaims({ email: 'OPERATOR@itinera.local' }, byEmail)).toBe('operator');
    expect(roleFromClaims({ email: 'reader@itinera.local', email_verified: true }, byEmail)).toBe('reader');
  });

  it('When the e-mail is in no list, then nobody gets in, unless readers list `*`', () => {
    expect(roleFromClaims({ email: 'stranger@example.org' }, byEmail)).toBeUndefined();
    expect(roleFromClaims({ email: 'stranger@example.org' }, { ...byEmail, readerEmails: ['*'] })).toBe('reader');
  });

  it('When the provider says the e-mail is not verified, then the e-mail lists do not count', () => {
    expect(roleFromClaims({ email: 'operator@itinera.local', email_verified: false }, byEmail)).toBeUndefined();
    expect(roleFromClaims({ email: 'x@example.org', email_verified: false }, { ...byEmail, readerEmails: ['*'] })).toBe(
      undefined,
    );
  });

  it('When a group is listed, then it earns the role, operator winning, from a list or a single string', () => {
    expect(roleFromClaims({ email: 'a@b.c', groups: ['x', 'itinera-operators'] }, byGroup)).toBe('operator');
    expect(roleFromClaims({ email: 'a@b.c', groups: ['itinera-readers', 'itinera-operators'] }, byGroup)).toBe(
      'operator',
    );
    expect(roleFromClaims({ email: 'a@b.c', groups: 'itinera-readers' }, byGroup)).toBe('reader');
    expect(roleFromClaims({ email: 'a@b.c', roles: ['itinera-readers'] }, { ...byGroup, groupClaim: 'roles' })).toBe(
      'reader',
    );
    expect(roleFromClaims({ email: 'a@b.c', groups: ['other'] }, byGroup)).toBeUndefined();
  });

  it('When there is no e-mail claim, then nobody gets in, even in a listed group', () => {
    expect(roleFromClaims({ groups: ['itinera-operators'] }, byGroup)).toBeUndefined();
  });
});
