import { deletedMatchIds } from './additions.js';
import type { UserInputEntry } from './input-entry.js';

/**
 * A user's inputs grouped by key and sorted by `data.start_ts`, so that each trip or place finds its candidates by
 * binary search instead of scanning every input the user ever gave.
 */
export interface InputIndex {
  byKey: ReadonlyMap<string, readonly UserInputEntry[]>;
  /** Match ids of deleted notes, over both note keys: a deletion applies wherever its note would have landed. */
  deletedNotes: ReadonlySet<string>;
}

export function indexInputs(inputs: Iterable<UserInputEntry>): InputIndex {
  const byKey = new Map<string, UserInputEntry[]>();
  const all: UserInputEntry[] = [];
  for (const input of inputs) {
    all.push(input);
    const list = byKey.get(input.metadata.key);
    if (list) list.push(input);
    else byKey.set(input.metadata.key, [input]);
  }
  for (const list of byKey.values()) list.sort((a, b) => a.data.start_ts - b.data.start_ts);
  return { byKey, deletedNotes: deletedMatchIds(all) };
}

/** Inputs of `key` whose `data.start_ts` lies in [start, end], both included (e-mission's candidate query). */
export function inputsStartingWithin(index: InputIndex, key: string, start: number, end: number): UserInputEntry[] {
  const list = index.byKey.get(key);
  if (!list) return [];
  const from = firstStartingAtOrAfter(list, start);
  const found: UserInputEntry[] = [];
  for (let i = from; i < list.length && list[i]!.data.start_ts <= end; i++) found.push(list[i]!);
  return found;
}

function firstStartingAtOrAfter(list: readonly UserInputEntry[], ts: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]!.data.start_ts < ts) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
