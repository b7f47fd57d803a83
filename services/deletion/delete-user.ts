import pLimit from 'p-limit';
import { OverloadedError } from '../../shared/errors/index.js';
import type { Logger } from '../../shared/logger/index.js';
import type { DeletedBy, DeletedUsersTable, UserStore } from '../../shared/tables/index.js';
import type { ErasureCounts, UserErasure } from './user-erasure.js';

export interface DeleteUserDeps {
  users: Pick<UserStore, 'remove'>;
  deletedUsers: Pick<DeletedUsersTable, 'record'>;
  erase: UserErasure;
  /** Where the audit line goes: who deleted which account, when, and how much went; no personal data. */
  audit: Logger;
}

export interface DeletionReport extends ErasureCounts {
  userId: string;
  by: DeletedBy;
  tookMs: number;
}

/**
 * Deletes an account and all its data. The order is what makes it final: first the account is marked deleted, so
 * the converter and trip builder drop whatever still arrives for it (a put in flight, a topic replay); then the
 * token stops working; only then are the rows removed. An interrupted deletion is completed by running it again.
 */
export async function deleteUser(
  deps: DeleteUserDeps,
  userId: string,
  by: DeletedBy,
  actor?: string,
): Promise<DeletionReport> {
  const started = performance.now();
  await deps.deletedUsers.record(userId, by);
  await deps.users.remove(userId);
  const counts = await deps.erase(userId);
  const report = { userId, by, ...counts, tookMs: Math.round(performance.now() - started) };
  // The uuid names no one once the account is gone; the actor is the operator's login, never a participant's.
  deps.audit.info('Account deleted', { audit: 'account-deleted', ...report, ...(actor ? { actor } : {}) });
  return report;
}

/**
 * Deletions through `remove`, a few at a time (each walks every table of a user): `atOnce` run, `queued` wait, and
 * one more is refused with an OverloadedError (503 with Retry-After), so a burst of deletions cannot take the
 * Cassandra reads the phones need.
 */
export function boundedDeletions<T>(
  remove: (userId: string) => Promise<T>,
  { atOnce = 2, queued = 8 }: { atOnce?: number; queued?: number } = {},
): (userId: string) => Promise<T> {
  const limit = pLimit(atOnce);
  return (userId) => {
    if (limit.activeCount + limit.pendingCount >= atOnce + queued)
      return Promise.reject(new OverloadedError('too many account deletions at once; retry later'));
    return limit(() => remove(userId));
  };
}
