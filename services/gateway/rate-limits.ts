import {
  createRateLimits as createLimits,
  type Allowance,
  type RateLimits as Limits,
} from '../../shared/http/rate-limits.js';

export type { Allowance };

/** The calls that are expensive or that act on an account as a whole, each limited per address and per token. */
export type LimitedAction = 'profile-create' | 'profile-delete' | 'export';

export type RateLimits = Limits<LimitedAction>;

/**
 * Per gateway process. A phone registers once and deletes once; a participant downloads a few files; the limits sit
 * far above that (an address: a study's onboarding puts a room behind one NAT), and far below what a script cycling
 * tokens or addresses would need to fill tables or keep Cassandra busy with exports.
 */
export const DEFAULT_ALLOWANCES: Readonly<Record<LimitedAction, Allowance>> = {
  'profile-create': { perAddress: 120, perToken: 20 },
  'profile-delete': { perAddress: 20, perToken: 5 },
  export: { perAddress: 30, perToken: 10 },
};

export function createRateLimits(
  allowances: Readonly<Record<LimitedAction, Allowance>> = DEFAULT_ALLOWANCES,
): RateLimits {
  return createLimits(allowances);
}
