import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { isLoopbackHost } from '../config/index.js';
import { RateLimitedError } from '../errors/index.js';

export interface Allowance {
  /** Calls one address may make per minute. */
  perAddress: number;
  /** Calls one token (or account) may make per minute. */
  perToken: number;
}

export interface RateLimits<Action extends string> {
  /**
   * Counts one call; throws a RateLimitedError (429, `Retry-After` in seconds) once either allowance is spent. Calls
   * from this machine's own loopback address (tools, the benchmark, a client beside the server) are not counted; a
   * reverse proxy's clients are, by the address it forwards.
   */
  take(action: Action, address: string, token: string | undefined): Promise<void>;
}

/**
 * Fixed one-minute windows kept in memory by rate-limiter-flexible, one limiter per action and key kind, per process
 * (each instance counts its own). Memory is bounded by the keys seen within a minute, which the library expires.
 */
export function createRateLimits<Action extends string>(
  allowances: Readonly<Record<Action, Allowance>>,
): RateLimits<Action> {
  const limiter = (points: number, keyPrefix: string) => new RateLimiterMemory({ points, duration: 60, keyPrefix });
  const limiters = new Map(
    (Object.entries(allowances) as [Action, Allowance][]).map(([action, a]) => [
      action,
      { address: limiter(a.perAddress, `${action}:address`), token: limiter(a.perToken, `${action}:token`) },
    ]),
  );
  return {
    async take(action, address, token) {
      if (isLoopbackHost(address.replace(/^::ffff:/, ''))) return;
      const { address: byAddress, token: byToken } = limiters.get(action)!;
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
