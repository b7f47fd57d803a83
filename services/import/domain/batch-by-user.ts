import type { EmissionEntry } from './emission-entry.js';

export interface UserBatch {
  userUuid: string;
  entries: EmissionEntry[];
}

/**
 * Entries in batches of one user each, for pushing as that user: consecutive entries of a user share a batch until
 * it holds `maxBatch`, and a change of user closes it. Dumps come grouped by user (mongoexport follows the
 * collection's order, e-mission's export is per user), so this yields few, full batches while holding at most one
 * batch in memory; a user met again later simply starts a new batch. It never gathers a whole user first: one
 * user's history can be millions of entries.
 */
export async function* batchByUser(entries: AsyncIterable<EmissionEntry>, maxBatch = 5000): AsyncGenerator<UserBatch> {
  // A programming mistake, not a data problem: a batch of none would loop forever.
  if (!Number.isInteger(maxBatch) || maxBatch < 1) throw new RangeError(`maxBatch must be a positive integer`);
  let current: UserBatch | undefined;
  for await (const entry of entries) {
    if (current && current.userUuid !== entry.userUuid) {
      yield current;
      current = undefined;
    }
    current ??= { userUuid: entry.userUuid, entries: [] };
    current.entries.push(entry);
    if (current.entries.length >= maxBatch) {
      yield current;
      current = undefined;
    }
  }
  if (current) yield current;
}
