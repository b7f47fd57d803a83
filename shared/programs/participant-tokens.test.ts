import QRCode from 'qrcode';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/index.js';
import { createParticipantTokens, loginLink, MAX_TOKENS_PER_CALL, TOKEN_RANDOM_CHARS } from './participant-tokens.js';

/** Bytes 0, 1, 2, … (wrapping): deterministic, and covers the bytes the alphabet must skip (248 to 255). */
function counting(): (size: number) => Uint8Array {
  let next = 0;
  return (size) => Uint8Array.from({ length: size }, () => next++ % 256);
}

describe('createParticipantTokens', () => {
  it("When tokens are created, then each has e-mission's shape nrelop_<program>_<subgroup>_<32 alphanumerics>", async () => {
    const created = await createParticipantTokens({ program: 'open-access', subgroup: 'default', count: 5 });
    expect(created).toHaveLength(5);
    for (const { token } of created) {
      expect(token).toMatch(new RegExp(`^nrelop_open-access_default_[A-Za-z0-9]{${TOKEN_RANDOM_CHARS}}$`));
      // What e-mission's phone and server read back: the study and the subgroup.
      expect(token.split('_').slice(1, 3)).toEqual(['open-access', 'default']);
    }
    expect(new Set(created.map((t) => t.token)).size).toBe(5);
  });

  it('When the random source is given, then the tokens come from it, with no character favoured', async () => {
    const [a] = await createParticipantTokens({ program: 'study', subgroup: 'g1', count: 1 }, counting());
    expect(a!.token).toBe('nrelop_study_g1_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef');
    // Bytes 248..255 are skipped (they would favour A..H): 4 rounds of the 256 bytes give each character 16 times.
    const random = counting();
    random(256);
    const many = await createParticipantTokens({ program: 'study', subgroup: 'g1', count: 31 }, random);
    const counts = new Map<string, number>();
    for (const { token } of many)
      for (const c of token.slice('nrelop_study_g1_'.length)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    expect(new Set(counts.values())).toEqual(new Set([16]));
  });

  it("When a token is created, then its QR code is an SVG of the app's login link emission://login_token?token=…", async () => {
    const [{ token, qrSvg }] = (await createParticipantTokens({ program: 'study', subgroup: 'default', count: 1 })) as [
      { token: string; qrSvg: string },
    ];
    expect(loginLink(token)).toBe(`emission://login_token?token=${token}`);
    const url = new URL(loginLink(token));
    expect([url.protocol, url.searchParams.get('token')]).toEqual(['emission:', token]);
    expect(qrSvg).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(qrSvg).toBe(await QRCode.toString(loginLink(token), { type: 'svg' }));
    expect(qrSvg).not.toBe(await QRCode.toString(token, { type: 'svg' }));
  });

  it('When the program, subgroup or count is invalid, then it is refused with a ValidationError', async () => {
    const ok = { program: 'study', subgroup: 'default', count: 1 };
    for (const bad of [
      { ...ok, program: 'my_study' },
      { ...ok, program: '' },
      { ...ok, subgroup: 'a/b' },
      { ...ok, subgroup: 'x'.repeat(65) },
      { ...ok, count: 0 },
      { ...ok, count: 1.5 },
      { ...ok, count: MAX_TOKENS_PER_CALL + 1 },
    ]) {
      await expect(createParticipantTokens(bad)).rejects.toBeInstanceOf(ValidationError);
    }
  });
});
