import { createHmac } from 'node:crypto';
import { ConfigError } from '../../shared/errors/index.js';

const UUID_TEXT = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/**
 * A stable pseudonym for a user: HMAC-SHA256 of the id under `secret`, its first 128 bits written like a uuid so
 * that tools expecting a uuid column still accept it. The same secret gives the same pseudonym in every export,
 * so a researcher can join a user's exports; without the secret, the real id cannot be recovered nor guessed by
 * hashing known ids (which a plain hash would allow).
 *
 * A uuid is hashed in one canonical form (lower case, no dashes, as e-mission's `$uuid` writes it), so the same
 * user gets the same pseudonym whichever way the id was spelled.
 *
 * It lives outside `domain/` because it needs node:crypto (Web Crypto's HMAC is async only); the formatters that
 * write pseudonyms take it as a parameter (`ndjsonLines`'s `userIdFor`, the CSVs' `userId`).
 */
export function keyedUserId(secret: string, userId: string): string {
  if (secret.length === 0) {
    throw new ConfigError('A de-identification secret is required: without one, pseudonyms can be recomputed');
  }
  const canonical = UUID_TEXT.test(userId) ? userId.replace(/-/g, '').toLowerCase() : userId;
  const hex = createHmac('sha256', secret).update(canonical).digest('hex').slice(0, 32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
