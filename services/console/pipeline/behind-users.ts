import type { ResumePointRow } from '../../../shared/tables/index.js';

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

type ResumeRow = Pick<ResumePointRow, 'userId' | 'resumeFromTs'> & Partial<Pick<ResumePointRow, 'updateTs'>>;

/**
 * The users whose trip builder resume point (trip_builder_state, see shared/tables/trip-builder-state.ts) is more than `behindHours`
 * before their last push. Reads the rows once, in order, keeping only the `limit` furthest behind (memory does
 * not grow with the table); users without a known last push are left out.
 *
 * The resume point is the first fix of the user's open or last trip, so it lags the last push of a user who has
 * stayed in one place since; such a user is left out when the trip builder saved the resume point (`updateTs`)
 * after that push: it has seen the push. What remains is a list of users to look at, not a verdict.
 */
export async function findBehindUsers(
  rows: AsyncIterable<ResumeRow> | Iterable<ResumeRow>,
  lastPushOf: LastPushLookup,
  behindHours: number,
  limit = BEHIND_USERS_LISTED,
): Promise<BehindUsers> {
  const groups = await findBehindUsersByGroup(rows, lastPushOf, () => undefined, behindHours, limit);
  return groups.get(undefined) ?? { thresholdHours: behindHours, count: 0, users: [] };
}

/**
 * The same, counted and listed per group of users (the console's programs: `groupOf` names a user's program), each
 * group keeping its own `limit` furthest behind: a view of some groups merges theirs (mergeBehindUsers).
 */
export async function findBehindUsersByGroup<G>(
  rows: AsyncIterable<ResumeRow> | Iterable<ResumeRow>,
  lastPushOf: LastPushLookup,
  groupOf: (userId: string) => G,
  behindHours: number,
  limit = BEHIND_USERS_LISTED,
): Promise<Map<G, BehindUsers>> {
  const threshold = behindHours * 3600;
  const groups = new Map<G, BehindUsers>();
  for await (const row of rows) {
    const lastPush = await lastPushOf(row.userId);
    if (lastPush === null || lastPush === undefined || !Number.isFinite(lastPush)) continue;
    const behindSeconds = lastPush - row.resumeFromTs;
    if (!(behindSeconds > threshold)) continue;
    if (row.updateTs !== null && row.updateTs !== undefined && row.updateTs >= lastPush) continue;
    const group = groupOf(row.userId);
    let found = groups.get(group);
    if (!found) groups.set(group, (found = { thresholdHours: behindHours, count: 0, users: [] }));
    found.count += 1;
    keepFurthest(found.users, { userId: row.userId, resumeFromTs: row.resumeFromTs, lastPush, behindSeconds }, limit);
  }
  return groups;
}

/** Several groups' answers as one: counts summed, the `limit` furthest behind of all of them. */
export function mergeBehindUsers(
  parts: Iterable<BehindUsers>,
  thresholdHours: number,
  limit = BEHIND_USERS_LISTED,
): BehindUsers {
  const merged: BehindUsers = { thresholdHours, count: 0, users: [] };
  for (const part of parts) {
    merged.count += part.count;
    for (const user of part.users) keepFurthest(merged.users, user, limit);
  }
  return merged;
}

/** Inserts `user` into `top` (furthest behind first) when it is among the `limit` furthest. */
function keepFurthest(top: BehindUser[], user: BehindUser, limit: number): void {
  if (top.length === limit && !furtherBehind(user, top[top.length - 1]!)) return;
  top.splice(insertionIndex(top, user), 0, user);
  if (top.length > limit) top.pop();
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
  /** The full scan of resume points (trip_builder_state's scan over the console's session). */
  scan: () => AsyncIterable<Pick<ResumePointRow, 'userId' | 'resumeFromTs' | 'updateTs'>>;
  lastPushOf: LastPushLookup;
  /** The user's program (null: the implicit one), so that a view of some programs lists only theirs. */
  programOf?: (userId: string) => string | null;
  behindHours: number;
  /** A refresh within this long of the last one returns it again. @defaultValue 60000 */
  minRefreshMs?: number;
  /** The clock, in milliseconds. @defaultValue Date.now */
  now?: () => number;
}

export interface BehindUsersTracker {
  /**
   * Scans again, unless the last scan is less than minRefreshMs old; concurrent calls share one scan. Answers the
   * whole deployment's.
   */
  refresh(): Promise<BehindUsers>;
  /**
   * The last scan's answer (undefined before the first): what a request reads, never a scan. With `programs`, only
   * the users of the programs it keeps.
   */
  current(programs?: (program: string | null) => boolean): BehindUsers | undefined;
}

/**
 * The behind users as the console serves them: the table scan runs from the console's refresh loop, at most once
 * per minRefreshMs, and requests read the last answer.
 */
export function createBehindUsersTracker(options: BehindUsersTrackerOptions): BehindUsersTracker {
  const now = options.now ?? Date.now;
  const minRefreshMs = options.minRefreshMs ?? 60_000;
  const programOf = options.programOf ?? (() => null);
  let last: { at: number; answer: BehindUsers; byProgram: Map<string | null, BehindUsers> } | undefined;
  let inFlight: Promise<BehindUsers> | undefined;
  return {
    refresh() {
      if (last && now() - last.at < minRefreshMs) return Promise.resolve(last.answer);
      inFlight ??= findBehindUsersByGroup(options.scan(), options.lastPushOf, programOf, options.behindHours)
        .then((byProgram) => {
          const answer = mergeBehindUsers(byProgram.values(), options.behindHours);
          last = { at: now(), answer, byProgram };
          return answer;
        })
        .finally(() => {
          inFlight = undefined;
        });
      return inFlight;
    },
    current(programs) {
      if (!last || programs === undefined) return last?.answer;
      const kept = [...last.byProgram].filter(([program]) => programs(program)).map(([, part]) => part);
      return mergeBehindUsers(kept, options.behindHours);
    },
  };
}
