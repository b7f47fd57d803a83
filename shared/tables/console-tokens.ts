import { LRUCache } from 'lru-cache';
import type { Cql } from '../cassandra/index.js';
import { forEachBounded } from '../runtime/for-each-bounded.js';

/**
 * Tables `issued_tokens` and `refused_tokens` (schemas/cql/013) and `revoked_tokens` (schemas/cql/017). The console
 * issues participant tokens and lists the refused ones; the gateway accepts issued tokens in `token_list` mode
 * (`isIssued`), refuses revoked ones in every mode (`isRevoked`) and records the tokens it refuses (`recordRefusal`,
 * which the gateway throttles: services/gateway/auth/refusal-log.ts). Operators revoke from the console or the CLI.
 */
const ISSUED = 'issued_tokens';
const REFUSED = 'refused_tokens';
const REVOKED = 'revoked_tokens';

/** How long refused tokens are kept: the table's `default_time_to_live`, in days. */
export const REFUSED_TOKENS_DAYS = 30;
/** The longest prefix of a refused token that is stored and shown (it is no credential, only what the phone sent). */
export const REFUSED_TOKEN_MAX_CHARS = 128;

export interface RefusedToken {
  token: string;
  /** Approximate: the gateways' in-memory tallies, summed over the days listed. */
  attempts: number;
  /** Unix seconds. */
  firstTs: number;
  lastTs: number;
  /** Why the last attempt was refused. */
  reason: string;
}

export interface RefusalTally {
  attempts: number;
  /** Unix seconds of the first attempt of the tally. */
  firstTs: number;
}

export interface RevokedToken {
  token: string;
  /** Unix seconds. */
  revokedTs: number;
  revokedBy: string;
  reason: string;
}

export interface ConsoleTokensTable {
  /** Records tokens as issued for a program and subgroup, by an operator; issuing a token again rewrites its row. */
  issue(tokens: readonly string[], program: string, subgroup: string, by: string): Promise<void>;
  /** Whether the console issued the token (a read at most every `issuedTtlMs`, or `notIssuedTtlMs` if not). */
  isIssued(token: string): Promise<boolean>;
  /**
   * Writes a refused token's row of the UTC day of `ts` (Unix seconds): the token cut to its first 128 characters,
   * the reason, and the tally (by default a single attempt at `ts`). An upsert: writing the same tally twice is
   * harmless; a later write replaces attempts and first_ts with its own tally.
   */
  recordRefusal(token: string, reason: string, ts: number, tally?: RefusalTally): Promise<void>;
  /**
   * The tokens refused over the last `days` UTC days (today included, at most 30), most recently refused first, one
   * row per token (attempts summed over the days). Reads at most `maxRows` rows, newest days first.
   */
  listRefused(days: number, options?: { maxRows?: number }): Promise<RefusedToken[]>;
  /**
   * Revokes tokens for good: revoking one again keeps its first revocation (when, by whom, why). Answers the tokens
   * this call revoked, without those that already were.
   */
  revoke(tokens: readonly string[], by: string, reason: string): Promise<string[]>;
  /**
   * Whether the token was revoked. "Revoked" is believed for good; "not revoked" for `notRevokedTtlMs`, the longest a
   * gateway goes on accepting a token after its revocation.
   */
  isRevoked(token: string): Promise<boolean>;
  /**
   * Revoked tokens, most recently revoked first; reads at most `maxRows` rows (past that, the rows read are a part of
   * the table in token order, not the newest).
   */
  listRevoked(options?: { maxRows?: number }): Promise<RevokedToken[]>;
}

export interface ConsoleTokensOptions {
  /** Tokens remembered, issued or not. @defaultValue 100000 */
  cacheEntries?: number;
  /** How long "issued" is believed (a revocation would take this long to reach every gateway). @defaultValue 600000 */
  issuedTtlMs?: number;
  /**
   * How long "not issued" is believed: at most this long after the console issues a token, a gateway that refused it
   * just before still refuses it. @defaultValue 10000
   */
  notIssuedTtlMs?: number;
  /** How long "not revoked" is believed: a revocation reaches every gateway within this. @defaultValue 60000 */
  notRevokedTtlMs?: number;
}

/** Days since 1970-01-01 of a Unix-seconds time, in UTC: the partition of refused_tokens. */
export function utcDay(ts: number): number {
  return Math.floor(ts / 86_400);
}

/** The first `REFUSED_TOKEN_MAX_CHARS` characters (code points, so no surrogate pair is cut) of a token. */
export function refusedTokenKey(token: string): string {
  if (token.length <= REFUSED_TOKEN_MAX_CHARS) return token;
  return Array.from(token).slice(0, REFUSED_TOKEN_MAX_CHARS).join('');
}

function unixSeconds(value: unknown): number {
  return value instanceof Date ? value.getTime() / 1000 : 0;
}

export function createConsoleTokensTable(
  cql: Cql,
  {
    cacheEntries = 100_000,
    issuedTtlMs = 600_000,
    notIssuedTtlMs = 10_000,
    notRevokedTtlMs = 60_000,
  }: ConsoleTokensOptions = {},
): ConsoleTokensTable {
  // Bounded: in token_list mode every refused token is looked up, and a client may send any number of them.
  const known = new LRUCache<string, boolean>({ max: cacheEntries, ttl: issuedTtlMs });
  // Every caller's token is looked up here; a revocation is final, so only "not revoked" needs to be asked again.
  const revoked = new LRUCache<string, boolean>({ max: cacheEntries, ttl: notRevokedTtlMs });
  return {
    async issue(tokens, program, subgroup, by) {
      const now = new Date();
      // One partition per token, so no batch (a multi-partition batch only loads its coordinator).
      await forEachBounded(tokens, 16, async (token) => {
        await cql.write(
          `INSERT INTO ${ISSUED} (user_token, program, subgroup, created_at, created_by) VALUES (?, ?, ?, ?, ?)`,
          [token, program, subgroup, now, by],
        );
        known.set(token, true);
      });
    },
    async isIssued(token) {
      const cached = known.get(token);
      if (cached !== undefined) return cached;
      const rs = await cql.read(`SELECT user_token FROM ${ISSUED} WHERE user_token = ?`, [token]);
      const issued = rs.rows.length > 0;
      known.set(token, issued, issued ? {} : { ttl: notIssuedTtlMs });
      return issued;
    },
    async recordRefusal(token, reason, ts, tally = { attempts: 1, firstTs: ts }) {
      await cql.write(
        `INSERT INTO ${REFUSED} (day, user_token, first_ts, last_ts, reason, attempts) VALUES (?, ?, ?, ?, ?, ?)`,
        [
          utcDay(ts),
          refusedTokenKey(token),
          new Date(tally.firstTs * 1000),
          new Date(ts * 1000),
          reason,
          Math.min(tally.attempts, 2 ** 31 - 1),
        ],
      );
    },
    async revoke(tokens, by, reason) {
      const now = new Date();
      const done: string[] = [];
      await forEachBounded([...new Set(tokens)], 16, async (token) => {
        // IF NOT EXISTS: a second revocation leaves the first one's record as it was.
        const rs = await cql.conditional(
          `INSERT INTO ${REVOKED} (user_token, revoked_at, revoked_by, reason) VALUES (?, ?, ?, ?) IF NOT EXISTS`,
          [token, now, by, reason],
        );
        if (rs.rows[0]?.['[applied]'] === true) done.push(token);
        revoked.set(token, true, { ttl: 0 });
      });
      return done;
    },
    async isRevoked(token) {
      const cached = revoked.get(token);
      if (cached !== undefined) return cached;
      const rs = await cql.read(`SELECT user_token FROM ${REVOKED} WHERE user_token = ?`, [token]);
      // A revoke() of this process while the read was under way wins over the read's "no".
      const isRevoked = rs.rows.length > 0 || revoked.get(token) === true;
      revoked.set(token, isRevoked, isRevoked ? { ttl: 0 } : {});
      return isRevoked;
    },
    async listRevoked({ maxRows = 10_000 } = {}) {
      const rows: RevokedToken[] = [];
      for await (const row of cql.iterate(
        `SELECT user_token, revoked_at, revoked_by, reason FROM ${REVOKED}`,
        [],
        Math.min(1000, maxRows),
      )) {
        rows.push({
          token: String(row['user_token']),
          revokedTs: unixSeconds(row['revoked_at']),
          revokedBy: String(row['revoked_by'] ?? ''),
          reason: String(row['reason'] ?? ''),
        });
        if (rows.length >= maxRows) break;
      }
      return rows.sort((a, b) => b.revokedTs - a.revokedTs || (a.token < b.token ? -1 : 1));
    },
    async listRefused(days, { maxRows = 10_000 } = {}) {
      const today = utcDay(Date.now() / 1000);
      const span = Math.max(1, Math.min(REFUSED_TOKENS_DAYS, Math.floor(days)));
      const byToken = new Map<string, RefusedToken>();
      let read = 0;
      for (let day = today; day > today - span && read < maxRows; day -= 1) {
        for await (const row of cql.iterate(
          `SELECT user_token, first_ts, last_ts, reason, attempts FROM ${REFUSED} WHERE day = ?`,
          [day],
          Math.min(1000, maxRows),
        )) {
          const refused: RefusedToken = {
            token: String(row['user_token']),
            attempts: Number(row['attempts'] ?? 0),
            firstTs: unixSeconds(row['first_ts']),
            lastTs: unixSeconds(row['last_ts']),
            reason: String(row['reason'] ?? ''),
          };
          const seen = byToken.get(refused.token);
          // Newest day first: a token seen on a later day already holds the latest reason and last_ts.
          if (seen) {
            seen.attempts += refused.attempts;
            seen.firstTs = Math.min(seen.firstTs, refused.firstTs);
          } else byToken.set(refused.token, refused);
          if (++read >= maxRows) break;
        }
      }
      return [...byToken.values()].sort((a, b) => b.lastTs - a.lastTs);
    },
  };
}
