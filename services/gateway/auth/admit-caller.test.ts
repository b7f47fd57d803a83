import { describe, expect, it } from 'vitest';
import type { Config } from '../../../shared/config/index.js';
import { ForbiddenError } from '../../../shared/errors/index.js';
import { admitCaller } from './admit-caller.js';
import type { TokenChecks } from './resolve-token.js';

const REVOKED = 'nrelop_study_default_revoked0123456789';

function checks(): TokenChecks & { refusals: string[] } {
  const refusals: string[] = [];
  return {
    refusals,
    isIssued: async () => true,
    isRevoked: async (token) => token === REVOKED,
    refused: (_token, reason) => refusals.push(reason),
  };
}

const modes: Config['webserver'][] = [
  { auth: 'skip' } as Config['webserver'],
  { auth: 'token_list', tokenList: [REVOKED] } as unknown as Config['webserver'],
  { auth: 'secret', secretPrefixes: ['nrelop_'] } as unknown as Config['webserver'],
];

describe('admitCaller and revoked tokens', () => {
  it.each(modes.map((auth) => [auth.auth, auth] as const))(
    'When a revoked token calls in %s mode, then it is refused even where the mode would let it in, and noted',
    async (_mode, auth) => {
      const tokens = checks();
      await expect(admitCaller({ user: REVOKED }, { auth, tokens })).rejects.toBeInstanceOf(ForbiddenError);
      expect(tokens.refusals).toEqual(['revoked by an operator']);
      // Any other token the mode takes still comes in.
      const other = REVOKED.replace('revoked', 'welcome');
      const caller = await admitCaller(
        { user: other },
        { auth: { ...auth, tokenList: [other] } as typeof auth, tokens },
      );
      expect(caller.userEmail).toBe(other);
    },
  );

  it('When a program would admit the revoked token, then it is refused; a token refused anyway costs no lookup', async () => {
    const tokens = checks();
    const looked: string[] = [];
    const isRevoked = tokens.isRevoked;
    tokens.isRevoked = async (token) => (looked.push(token), isRevoked(token));
    const programs = { admit: async () => ({ kind: 'member' as const, program: 'study', issuedOnly: false }) };
    const skip = { auth: 'skip' } as Config['webserver'];
    await expect(admitCaller({ user: REVOKED }, { auth: skip, tokens, programs: programs as never })).rejects.toThrow(
      'invalid token: revoked by an operator',
    );
    const secret = { auth: 'secret', secretPrefixes: ['other_'] } as unknown as Config['webserver'];
    await expect(admitCaller({ user: 'no-prefix-token' }, { auth: secret, tokens })).rejects.toBeInstanceOf(
      ForbiddenError,
    );
    expect(looked).toEqual([REVOKED]);
  });
});
