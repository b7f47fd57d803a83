import { describe, expect, it } from 'vitest';
import { createBehindUsersTracker, findBehindUsers, findBehindUsersByGroup } from './behind-users.js';

const HOUR = 3600;
const now = 1_700_000_000;
/** Users behind by the given hours, each in a program. */
const users = [
  { userId: 'a1', program: 'a', hours: 30 },
  { userId: 'a2', program: 'a', hours: 10 },
  { userId: 'b1', program: 'b', hours: 20 },
  { userId: 'n1', program: null, hours: 40 },
  { userId: 'a3', program: 'a', hours: 1 },
];
const rows = users.map((u) => ({ userId: u.userId, resumeFromTs: now - u.hours * HOUR, updateTs: null }));
const lastPush = () => now;
const programOf = (id: string) => users.find((u) => u.userId === id)!.program;

describe('behind users per program', () => {
  it('When users of several programs are behind, then each program counts and lists its own', async () => {
    const groups = await findBehindUsersByGroup(rows, lastPush, programOf, 6);
    expect(groups.get('a')).toMatchObject({ count: 2, users: [{ userId: 'a1' }, { userId: 'a2' }] });
    expect(groups.get('b')?.count).toBe(1);
    expect(groups.get(null)?.users.map((u) => u.userId)).toEqual(['n1']);
  });

  it('When the tracker is read for some programs, then only their users show, and without a filter everyone’s', async () => {
    const tracker = createBehindUsersTracker({
      scan: async function* () {
        yield* rows;
      },
      lastPushOf: lastPush,
      programOf,
      behindHours: 6,
    });
    const all = await tracker.refresh();
    expect(all).toEqual(await findBehindUsers(rows, lastPush, 6));
    expect(all.users.map((u) => u.userId)).toEqual(['n1', 'a1', 'b1', 'a2']);
    const b = tracker.current((p) => p === 'b')!;
    expect([b.count, b.users.map((u) => u.userId)]).toEqual([1, ['b1']]);
    const ab = tracker.current((p) => p === 'a' || p === 'b')!;
    expect([ab.count, ab.users.map((u) => u.userId)]).toEqual([3, ['a1', 'b1', 'a2']]);
    expect(tracker.current((p) => p === 'c')).toEqual({ thresholdHours: 6, count: 0, users: [] });
  });

  it('When more users are behind than listed, then a merge keeps the furthest of all groups and sums the counts', async () => {
    const tracker = createBehindUsersTracker({
      scan: async function* () {
        yield* rows;
      },
      lastPushOf: lastPush,
      programOf,
      behindHours: 6,
    });
    await tracker.refresh();
    const groups = await findBehindUsersByGroup(rows, lastPush, programOf, 6, 1);
    expect([...groups.values()].map((g) => g.users.length)).toEqual([1, 1, 1]);
    expect(tracker.current(() => true)?.count).toBe(4);
  });
});
