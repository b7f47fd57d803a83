import { describe, expect, it } from 'vitest';
import { TokenRequest } from '../api/schemas.js';
import { createTokenIssuer, type TokenAdmission } from './issue-tokens.js';

const member = { kind: 'member', suspended: false, closed: undefined } as const;

function issuer(admission: TokenAdmission) {
  const recorded: string[][] = [];
  const issue = createTokenIssuer({
    admission: async () => admission,
    generate: async (r) => Array.from({ length: r.count }, (_, i) => ({ token: `t${i}`, qrSvg: '<svg/>' })),
    record: async (tokens) => void recorded.push([...tokens]),
  });
  return { issue, recorded };
}
const ask = (over: Record<string, unknown> = {}) => TokenRequest.parse({ program: 'study', ...over });

describe('issuing tokens', () => {
  it('When the program takes the subgroup, or the deployment serves no program, then the tokens are recorded and answered', async () => {
    for (const admission of [member, undefined]) {
      const { issue, recorded } = issuer(admission);
      expect((await issue(ask({ count: 2 }), 'op@example.org')).tokens).toHaveLength(2);
      expect(recorded).toEqual([['t0', 't1']]);
    }
  });

  it.each([
    [{ kind: 'refused', reason: 'unknown program "study"' }, /unknown program "study"/],
    [{ kind: 'refused', reason: 'invalid subgroup "x"' }, /subgroup "default": invalid subgroup "x"/],
    [{ ...member, closed: 'the study ended' }, /program "study" is closed: the study ended/],
    [{ ...member, suspended: true }, /subgroup "default" of program "study" is suspended/],
  ] as const)(
    'When a phone could not use them (%o), then nothing is made and the answer is a 400 saying why',
    async (admission, why) => {
      const { issue, recorded } = issuer(admission);
      const refusal = await issue(ask(), 'op@example.org').catch((err: unknown) => err);
      expect(refusal).toMatchObject({ status: 400, message: expect.stringMatching(why) });
      expect(recorded).toEqual([]);
    },
  );
});
