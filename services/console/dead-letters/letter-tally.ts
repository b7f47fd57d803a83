import { reasonGroup, type DeadLetter } from '../../../shared/timeseries/index.js';
import type { DeadLetterSummary } from '../api/schemas.js';
import type { z } from 'zod';

type Ref = Pick<DeadLetter, 'user_id' | 'key' | 'reason'>;

/**
 * Dead letters counted per participant by key and reason: one count of the error table serves the summary of every
 * scope (the whole deployment's, each program's admin's), since a scope is a set of participants.
 */
export interface LetterTally {
  /** The count stopped at its bound: there are more letters than counted. */
  truncated: boolean;
  /** user → `key\0reason` → letters. */
  byUser: Map<string, Map<string, number>>;
}

const SEPARATOR = '\u0000';

/** Counts at most `maxRows` letters (identity and reason only, never the payloads). */
export async function tallyLetters(refs: AsyncIterable<Ref>, maxRows: number): Promise<LetterTally> {
  const byUser = new Map<string, Map<string, number>>();
  let counted = 0;
  for await (const ref of refs) {
    if (counted >= maxRows) return { truncated: true, byUser };
    counted += 1;
    let groups = byUser.get(ref.user_id);
    if (!groups) byUser.set(ref.user_id, (groups = new Map()));
    const group = `${ref.key}${SEPARATOR}${reasonGroup(ref.reason)}`;
    groups.set(group, (groups.get(group) ?? 0) + 1);
  }
  return { truncated: false, byUser };
}

/** The counts by key and reason of the participants `visible` keeps (all without it), largest first. */
export function summarizeTally(
  tally: LetterTally,
  visible?: (userId: string) => boolean,
): z.infer<typeof DeadLetterSummary> {
  const counts = new Map<string, number>();
  let total = 0;
  for (const [userId, groups] of tally.byUser) {
    if (visible && !visible(userId)) continue;
    for (const [group, count] of groups) {
      counts.set(group, (counts.get(group) ?? 0) + count);
      total += count;
    }
  }
  const groups = [...counts].map(([group, count]) => {
    const at = group.indexOf(SEPARATOR);
    return { key: group.slice(0, at), reason: group.slice(at + 1), count };
  });
  return { total, truncated: tally.truncated, groups: groups.sort((a, b) => b.count - a.count) };
}

/** Letters per participant (the participants page's column). */
export function lettersPerUser(tally: LetterTally): Map<string, number> {
  const totals = new Map<string, number>();
  for (const [userId, groups] of tally.byUser) {
    let sum = 0;
    for (const count of groups.values()) sum += count;
    totals.set(userId, sum);
  }
  return totals;
}
