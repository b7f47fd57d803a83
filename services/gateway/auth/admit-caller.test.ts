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

  it('When a program would admit the revoked token, then it is refused before the program is asked', async () => {
    const tokens = checks();
    let asked = 0;
    const programs = {
      admit: async () => ((asked += 1), { kind: 'member' as const, program: 'study', issuedOnly: false }),
    };
    await expect(
      admitCaller(
        { user: REVOKED },
        { auth: { auth: 'skip' } as Config['webserver'], tokens, programs: programs as never },
      ),
    ).rejects.toThrow('invalid token: revoked by an operator');
    expect(asked).toBe(0);
  });
});
