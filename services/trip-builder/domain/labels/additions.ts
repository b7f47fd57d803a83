import { isActive, isDeleted, type UserInputEntry } from './input-entry.js';

/**
 * Match ids the user has deleted. Deleting a note re-sends it with status DELETED, and editing one deletes the old
 * copy; either way the ACTIVE note of that match id is gone for good, whichever of the two was written first.
 */
export function deletedMatchIds(entries: Iterable<UserInputEntry>): Set<string> {
  const deleted = new Set<string>();
  for (const entry of entries) {
    if (isDeleted(entry) && typeof entry.data.match_id === 'string') deleted.add(entry.data.match_id);
  }
  return deleted;
}

/** Whether a note still shows: ACTIVE (or no status) and never deleted. */
export function isLiveAddition(entry: UserInputEntry, deleted: ReadonlySet<string>): boolean {
  if (!isActive(entry)) return false;
  return typeof entry.data.match_id !== 'string' || !deleted.has(entry.data.match_id);
}

/** e-mission's order of a place's or trip's notes: by start time, then by id (ObjectIds grow with creation time). */
export function compareAdditions(a: UserInputEntry, b: UserInputEntry): number {
  if (a.data.start_ts !== b.data.start_ts) return a.data.start_ts - b.data.start_ts;
  return a._id.$oid < b._id.$oid ? -1 : a._id.$oid > b._id.$oid ? 1 : 0;
}

/** The notes that show, in display order. `candidates` are the notes already found valid for one element. */
export function liveAdditions(candidates: readonly UserInputEntry[], deleted: ReadonlySet<string>): UserInputEntry[] {
  return candidates.filter((entry) => isLiveAddition(entry, deleted)).sort(compareAdditions);
}

/**
 * `additions` with one more note at the end, as e-mission appends a note pushed after its trip exists (path A
 * re-sorts when the element is rebuilt). A note already there (same id) is not added twice: an input replayed, or
 * matched when its trip was built from the same push, must not show twice.
 */
export function appendAddition(additions: readonly UserInputEntry[], note: UserInputEntry): UserInputEntry[] {
  if (additions.some((existing) => existing._id.$oid === note._id.$oid)) return [...additions];
  return [...additions, note];
}

/** `additions` without the notes of a deleted match id. */
export function removeAdditions(additions: readonly UserInputEntry[], matchId: string): UserInputEntry[] {
  return additions.filter((entry) => entry.data.match_id !== matchId);
}
