import { createLogger } from '../../../shared/logger/index.js';
import { loggableToken } from '../../../shared/ids/token-digest.js';
import { createConsoleTokensTable } from '../../../shared/tables/index.js';
import type { Session } from '../session.js';

/**
 * Revokes participant tokens for good (table revoked_tokens): every gateway refuses them within user_cache_ttl_s (60
 * s), in every auth mode; the accounts and their data stay until deleted. Audited: who, why, and a digest of each
 * token.
 */
export async function revokeTokens(s: Session, tokens: readonly string[], by: string, reason: string): Promise<number> {
  const revoked = await createConsoleTokensTable(s.cql).revoke(tokens, `cli:${by}`, reason);
  createLogger({ component: 'audit' }).info('Tokens revoked', {
    by: `cli:${by}`,
    reason,
    revoked: revoked.map(loggableToken),
    alreadyRevoked: new Set(tokens).size - revoked.length,
  });
  process.stdout.write(
    `revoked ${revoked.length} token(s)${revoked.length < new Set(tokens).size ? `; ${new Set(tokens).size - revoked.length} already were` : ''}\n`,
  );
  return 0;
}
