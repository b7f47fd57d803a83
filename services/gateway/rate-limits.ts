import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { isLoopbackHost } from '../../shared/config/index.js';
import { RateLimitedError } from '../../shared/errors/index.js';

/** The calls that are expensive or that act on an account as a whole, each limited per address and per token. */
export type LimitedAction = 'profile-create' | 'profile-delete' | 'export';

export interface Allowance {
  /** Calls one address may make per minute: generous, as a study's onboarding puts a room behind one NAT. */
  perAddress: number;
  /** Calls one token may make per minute. */
  perToken: number;
}

/**
 * Per gateway process (each instance counts its own). A phone registers once and deletes once; a participant
 * downloads a few files; the limits sit far above that, and far below what a script cycling tokens or addresses
 * would need to fill tables or keep Cassandra busy with exports.
 */
export const DEFAULT_ALLOWANCES: Readonly<Record<LimitedAction, Allowance>> = {
  'profile-create': { perAddress: 120, perToken: 20 },
  'profile-delete': { perAddress: 20, perToken: 5 },
  export: { perAddress: 30, perToken: 10 },
};

export interface RateLimits {
  /**
   * Counts one call; throws a RateLimitedError (429, `Retry-After` in seconds) once either allowance is spent. Calls
   * from this machine's own loopback address (tools, the benchmark, a client beside the server) are not counted; a
   * reverse proxy's clients are, by the address it forwards.
   */
  take(action: LimitedAction, address: string, token: string | undefined): Promise<void>;
}

/**
 * Fixed one-minute windows kept in memory by rate-limiter-flexible, one limiter per action and key kind. Memory is
 * bounded by the keys seen within a minute, which the library expires.
 */
export function createRateLimits(
  allowances: Readonly<Record<LimitedAction, Allowance>> = DEFAULT_ALLOWANCES,
): RateLimits {
  const limiter = (points: number, keyPrefix: string) => new RateLimiterMemory({ points, duration: 60, keyPrefix });
  const limiters = Object.fromEntries(
    Object.entries(allowances).map(([action, a]) => [
      action,
      { address: limiter(a.perAddress, `${action}:address`), token: limiter(a.perToken, `${action}:token`) },
    ]),
  ) as Record<LimitedAction, { address: RateLimiterMemory; token: RateLimiterMemory }>;
  return {
    async take(action, address, token) {
      if (isLoopbackHost(address.replace(/^::ffff:/, ''))) return;
      const { address: byAddress, token: byToken } = limiters[action];
      try {
        await byAddress.consume(address);
        if (token !== undefined) await byToken.consume(token);
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        const retryAfter = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
        throw new RateLimitedError(`too many ${action} calls; try again in ${retryAfter} s`, {
          headers: { 'Retry-After': String(retryAfter) },
          details: { retry_after_seconds: retryAfter },
        });
      }
    },
  };
}
