import type { Config } from '../../../shared/config/index.js';
import { AuthMissingError, ForbiddenError } from '../../../shared/errors/index.js';

/** Longest token we look up; real ones (`nrelop_<study>_<subgroup>_<random>`) are under 100 characters. */
const MAX_TOKEN_LENGTH = 512;

/**
 * The token is the body's `user` field (never a header: the phone app sends it there only). It is checked
 * against the configured method and becomes the user name (`user_email`), as in e-mission's auth modules.
 */
export function verifyToken(body: unknown, auth: Config['webserver']): string {
  const token = body !== null && typeof body === 'object' ? (body as Record<string, unknown>)['user'] : undefined;
  if (token === undefined || token === null || token === '')
    throw new AuthMissingError('no user token in the request body ("user")');
  if (typeof token !== 'string') throw new ForbiddenError('the user token must be a string');
  if (token.length > MAX_TOKEN_LENGTH)
    throw new ForbiddenError(`the user token is longer than ${MAX_TOKEN_LENGTH} characters`);
  switch (auth.auth) {
    case 'skip':
      return token;
    case 'token_list':
      if (!auth.tokenList.includes(token)) throw new ForbiddenError('invalid token: not in the token list');
      return token;
    case 'secret':
      if (!auth.secretPrefixes.some((prefix) => prefix.length > 0 && token.startsWith(prefix))) {
        throw new ForbiddenError('invalid token: no accepted secret prefix');
      }
      return token;
  }
}
