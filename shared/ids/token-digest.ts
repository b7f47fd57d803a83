import { createHash } from 'node:crypto';

/**
 * The token as it may appear in a log or audit line: a short digest, in every auth mode. A token is a credential (in
 * `secret` mode its start is the shared secret itself) or, in development mode, an e-mail that a deletion must not
 * leave behind in the logs. The digest still lets an operator tell users apart and match a phone's token to its lines
 * (`echo -n <token> | sha256sum`).
 */
export function loggableToken(token: string): string {
  return `sha256:${createHash('sha256').update(token, 'utf8').digest('hex').slice(0, 12)}`;
}
