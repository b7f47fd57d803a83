import { createHash, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../../shared/config/index.js';
import { AuthMissingError, ForbiddenError, ValidationError } from '../../../shared/errors/index.js';

/** Longest token we look up; real ones (`nrelop_<study>_<subgroup>_<random>`) are under 100 characters. */
const MAX_TOKEN_LENGTH = 512;

/**
 * Control, format, surrogate, private-use and unassigned code points, and the line and paragraph separators
 * (U+2028, U+2029: line breaks to a log reader or a JavaScript string): nothing a real token holds.
 */
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/u;

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Digests of the accepted tokens, computed once per list. A token is accepted when its digest is among them:
 * the lookup's timing depends only on the digest, which tells an attacker nothing about any accepted token,
 * so a token list of any length is checked in constant time per call.
 */
const tokenDigests = new WeakMap<readonly string[], ReadonlySet<string>>();

export function isListed(token: string, list: readonly string[]): boolean {
  let digests = tokenDigests.get(list);
  if (!digests) {
    digests = new Set(list.map((t) => sha256(t).toString('hex')));
    tokenDigests.set(list, digests);
  }
  return digests.has(sha256(token).toString('hex'));
}

/**
 * True when the token starts with one of the secret prefixes. Every prefix is compared, each with a
 * constant-time comparison of digests, so the answer's timing says nothing about how much of a prefix matched.
 */
function hasSecretPrefix(token: string, prefixes: readonly string[]): boolean {
  let matched = false;
  for (const prefix of prefixes) {
    if (prefix.length === 0) continue;
    const same = timingSafeEqual(sha256(token.slice(0, prefix.length)), sha256(prefix));
    matched = same || matched;
  }
  return matched;
}

/**
 * The token is the body's `user` field (never a header: the phone app sends it there only), a printable string
 * of bounded length. It becomes the user name (`user_email`), as in e-mission's auth modules.
 */
export function tokenFromBody(body: unknown): string {
  const token =
    body !== null && typeof body === 'object' && Object.hasOwn(body, 'user')
      ? (body as Record<string, unknown>)['user']
      : undefined;
  if (token === undefined || token === null || token === '')
    throw new AuthMissingError('no user token in the request body ("user")');
  if (typeof token !== 'string') throw new ForbiddenError('the user token must be a string');
  if (token.length > MAX_TOKEN_LENGTH)
    throw new ForbiddenError(`the user token is longer than ${MAX_TOKEN_LENGTH} characters`);
  if (NON_PRINTABLE.test(token))
    throw new ValidationError('the user token holds control or non-printable characters', {
      details: { field: 'user' },
    });
  return token;
}

/** The body's token (tokenFromBody), checked against the deployment's auth method. */
export function verifyToken(body: unknown, auth: Config['webserver']): string {
  const token = tokenFromBody(body);
  switch (auth.auth) {
    case 'skip':
      return token;
    case 'token_list':
      if (!isListed(token, auth.tokenList)) throw new ForbiddenError('invalid token: not in the token list');
      return token;
    case 'secret':
      if (!hasSecretPrefix(token, auth.secretPrefixes))
        throw new ForbiddenError('invalid token: no accepted secret prefix');
      return token;
  }
}

/** What `authenticateToken` consults besides the configuration: the console's tokens and its record of refusals. */
export interface TokenChecks {
  /** Whether the console issued the token (table issued_tokens): in `token_list` mode it is then accepted. */
  isIssued(token: string): Promise<boolean>;
  /** Whether an operator revoked the token (table revoked_tokens): it is then refused in every mode. */
  isRevoked(token: string): Promise<boolean>;
  /** Notes a refused token (throttled, never waits: see refusal-log.ts). */
  refused(token: string, reason: string): void;
}

/**
 * verifyToken, then what only the database knows: in `token_list` mode a token the file list refuses is accepted
 * if the console issued it, and every refused token (not listed nor issued, no secret prefix, too long) is noted
 * for the console before the 403 is thrown. Without `checks`, verifyToken alone.
 */
export async function authenticateToken(
  body: unknown,
  auth: Config['webserver'],
  checks: TokenChecks | undefined,
): Promise<string> {
  try {
    return verifyToken(body, auth);
  } catch (err) {
    if (!checks || !(err instanceof ForbiddenError)) throw err;
    const token = (body as Record<string, unknown>)['user'];
    // A token that is not a string is refused before any mode is checked: nothing an operator could look up.
    if (typeof token !== 'string') throw err;
    if (token.length > MAX_TOKEN_LENGTH) {
      checks.refused(token, `longer than ${MAX_TOKEN_LENGTH} characters`);
      throw err;
    }
    if (auth.auth === 'token_list') {
      // An outage here throws a 503, which the phone retries; a 403 would make it wipe its data and start over.
      if (await checks.isIssued(token)) return token;
      checks.refused(token, 'not in the token list, nor issued');
    } else checks.refused(token, 'no accepted secret prefix');
    throw err;
  }
}
