import type { ResumePointRow } from '../../trip-builder/store/cassandra-trip-store.js';

/** A user whose trips are built up to well before their last push. Times are Unix seconds. */
export interface BehindUser {
  userId: string;
  resumeFromTs: number;
  lastPush: number;
  /** lastPush − resumeFromTs. */
  behindSeconds: number;
}

export interface BehindUsers {
  thresholdHours: number;
  /** Every user past the threshold. */
  count: number;
  /** The first `limit` of them, the furthest behind first. */
  users: BehindUser[];
}

/** A user's last push (Unix seconds), from whatever keeps it (the participant index); null or undefined: unknown. */
export type LastPushLookup = (userId: string) => number | null | undefined | Promise<number | null | undefined>;

/** How many users the answer lists. */
export const BEHIND_USERS_LISTED = 50;

/**
 * The users whose trip builder resume point (trip_builder_state, see scanResumePoints) is more than `behindHours`
 * before their last push. Reads the rows once, in order, keeping only the `limit` furthest behind (memory does
 * not grow with the table); users without a known last push are left out.
 *
 * The resume point is the first fix of the user's open or last trip, so it lags the last push of a user who has
 * stayed in one place since; such a user is left out when the trip builder saved the resume point (`updateTs`)
 * after that push: it has seen the push. What remains is a list of users to look at, not a verdict.
 */
export async function findBehindUsers(
  rows:
    | AsyncIterable<Pick<ResumePointRow, 'userId' | 'resumeFromTs'> & Partial<Pick<ResumePointRow, 'updateTs'>>>
    | Iterable<Pick<ResumePointRow, 'userId' | 'resumeFromTs'> & Partial<Pick<ResumePointRow, 'updateTs'>>>,
  lastPushOf: LastPushLookup,
  behindHours: number,
  limit = BEHIND_USERS_LISTED,
): Promise<BehindUsers> {
  const threshold = behindHours * 3600;
  const top: BehindUser[] = [];
  let count = 0;
  for await (const row of rows) {
    const lastPush = await lastPushOf(row.userId);
    if (lastPush === null || lastPush === undefined || !Number.isFinite(lastPush)) continue;
    const behindSeconds = lastPush - row.resumeFromTs;
    if (!(behindSeconds > threshold)) continue;
    if (row.updateTs !== null && row.updateTs !== undefined && row.updateTs >= lastPush) continue;
    count += 1;
    const user = { userId: row.userId, resumeFromTs: row.resumeFromTs, lastPush, behindSeconds };
    if (top.length === limit && !furtherBehind(user, top[top.length - 1]!)) continue;
    top.splice(insertionIndex(top, user), 0, user);
    if (top.length > limit) top.pop();
  }
  return { thresholdHours: behindHours, count, users: top };
}

/** Furthest behind first; equal ones by user id, so the order does not depend on the scan's. */
function furtherBehind(a: BehindUser, b: BehindUser): boolean {
  return a.behindSeconds > b.behindSeconds || (a.behindSeconds === b.behindSeconds && a.userId < b.userId);
}

function insertionIndex(sorted: readonly BehindUser[], user: BehindUser): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (furtherBehind(sorted[mid]!, user)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export interface BehindUsersTrackerOptions {
  /** The full scan of resume points (scanResumePoints over the console's session). */
  scan: () => AsyncIterable<Pick<ResumePointRow, 'userId' | 'resumeFromTs' | 'updateTs'>>;
  lastPushOf: LastPushLookup;
  behindHours: number;
  /** A refresh within this long of the last one returns it again. @defaultValue 60000 */
  minRefreshMs?: number;
  /** The clock, in milliseconds. @defaultValue Date.now */
  now?: () => number;
}

export interface BehindUsersTracker {
  /** Scans again, unless the last scan is less than minRefreshMs old; concurrent calls share one scan. */
  refresh(): Promise<BehindUsers>;
  /** The last scan's answer (undefined before the first): what a request reads, never a scan. */
  current(): BehindUsers | undefined;
}

/**
 * The behind users as the console serves them: the table scan runs from the console's refresh loop, at most once
 * per minRefreshMs, and requests read the last answer.
 */
export function createBehindUsersTracker(options: BehindUsersTrackerOptions): BehindUsersTracker {
  const now = options.now ?? Date.now;
  const minRefreshMs = options.minRefreshMs ?? 60_000;
  let last: { at: number; answer: BehindUsers } | undefined;
  let inFlight: Promise<BehindUsers> | undefined;
  return {
    refresh() {
      if (last && now() - last.at < minRefreshMs) return Promise.resolve(last.answer);
      inFlight ??= findBehindUsers(options.scan(), options.lastPushOf, options.behindHours)
        .then((answer) => {
          last = { at: now(), answer };
          return answer;
        })
        .finally(() => {
          inFlight = undefined;
        });
      return inFlight;
    },
    current: () => last?.answer,
  };
}
