import { randomBytes } from 'node:crypto';
import QRCode from 'qrcode';
import { ValidationError } from '../errors/index.js';
import { TOKEN_PART, TOKEN_PART_RULE } from '../ids/token-part.js';

/** Random characters of a token: e-mission's `generate_random_string` (e-mission-common, auth/opcode.py) uses 32. */
export const TOKEN_RANDOM_CHARS = 32;
/** Tokens one call creates at most (the console's TokenRequest allows as many). */
export const MAX_TOKENS_PER_CALL = 500;

/** Alphanumeric, as e-mission's own tokens: url-safe, and never `_`, which separates the token's parts. */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Bytes at or above this are skipped, so that every character of ALPHABET is equally likely (248 = 4 × 62). */
const UNBIASED_BELOW = 256 - (256 % ALPHABET.length);

export interface TokenRequest {
  program: string;
  /** e-mission's new-style studies accept `default` or one of the config's `opcode.subgroups`. */
  subgroup: string;
  count: number;
  /** Testers' tokens (`…_<subgroup>_test_<random>`), left out of the program's figures unless it includes them. */
  tester?: boolean;
}

export interface ParticipantToken {
  token: string;
  /** A QR code (SVG) the app's "Scan code" button reads: the link `emission://login_token?token=<token>`. */
  qrSvg: string;
}

/** Cryptographically random bytes; the tests pass their own. */
export type RandomBytes = (size: number) => Uint8Array;

/**
 * The payload of a token's QR code. The phone app's "Scan code" (e-mission-phone www/js/onboarding/WelcomePage.tsx,
 * `getCode`) parses what it scanned as a URL and accepts it only with the `emission:` protocol and a `token`
 * parameter: a QR code of the bare token is refused ("invalid study reference"). Later versions read a
 * `login_token` link of either scheme (www/js/config/opcode.ts `getTokenFromUrl`: `emission://` and NREL's
 * `nrelopenpath://`), so `emission://login_token?token=<token>` is the payload every version of the app scans.
 */
export function loginLink(token: string): string {
  return `emission://login_token?token=${encodeURIComponent(token)}`;
}

function randomPart(random: RandomBytes): string {
  let out = '';
  while (out.length < TOKEN_RANDOM_CHARS) {
    for (const byte of random(TOKEN_RANDOM_CHARS - out.length)) {
      if (byte < UNBIASED_BELOW) out += ALPHABET[byte % ALPHABET.length];
    }
  }
  return out;
}

/** One new token of a program and subgroup, a tester's when `tester` (names are not checked here). */
export function newToken(program: string, subgroup: string, tester = false, random: RandomBytes = randomBytes): string {
  return `nrelop_${program}_${subgroup}_${tester ? 'test_' : ''}${randomPart(random)}`;
}

/**
 * `count` new participant tokens in e-mission's shape, `nrelop_<program>_<subgroup>_<random>` (the program picks the
 * study config the app downloads; the subgroup is checked against it), each with its QR code. Nothing is stored:
 * the caller records them (ConsoleTokensTable.issue) before showing them.
 */
export async function createParticipantTokens(
  { program, subgroup, count, tester = false }: TokenRequest,
  random: RandomBytes = randomBytes,
): Promise<ParticipantToken[]> {
  for (const [field, value] of [
    ['program', program],
    ['subgroup', subgroup],
  ] as const) {
    if (!TOKEN_PART.test(value))
      throw new ValidationError(`${field}: ${TOKEN_PART_RULE}`, {
        details: { field },
      });
  }
  if (!Number.isInteger(count) || count < 1 || count > MAX_TOKENS_PER_CALL)
    throw new ValidationError(`count must be an integer from 1 to ${MAX_TOKENS_PER_CALL}`, {
      details: { field: 'count' },
    });
  const tokens = new Set<string>();
  while (tokens.size < count) tokens.add(newToken(program, subgroup, tester, random));
  return Promise.all(
    [...tokens].map(async (token) => ({ token, qrSvg: await QRCode.toString(loginLink(token), { type: 'svg' }) })),
  );
}
