import { inputName, isMultilabelKey, type UserInputEntry } from './input-entry.js';

/** A MULTILABEL answer is kept as its label string; a survey as its whole entry (the app reads `data.name` etc.). */
export type UserInputValue = string | UserInputEntry;
/** `user_input` of a trip or place, keyed by input key without `manual/` (`mode_confirm`, `trip_user_input`, …). */
export type UserInputMap = Record<string, UserInputValue>;

/**
 * The input written last: a user who changes a label writes a new entry, and the newest one is the answer. Equal
 * write times (a replayed batch) fall to the greater id, so the choice never depends on the order of the list.
 */
export function latestWritten(entries: readonly UserInputEntry[]): UserInputEntry | undefined {
  let latest: UserInputEntry | undefined;
  for (const entry of entries) {
    if (latest === undefined || writtenAfter(entry, latest)) latest = entry;
  }
  return latest;
}

function writtenAfter(a: UserInputEntry, b: UserInputEntry): boolean {
  if (a.metadata.write_ts !== b.metadata.write_ts) return a.metadata.write_ts > b.metadata.write_ts;
  return a._id.$oid > b._id.$oid;
}

/** What the winning entry contributes to `user_input`; undefined for a MULTILABEL entry that carries no label. */
export function userInputValue(entry: UserInputEntry): UserInputValue | undefined {
  if (!isMultilabelKey(entry.metadata.key)) return entry;
  return typeof entry.data.label === 'string' ? entry.data.label : undefined;
}

/** `{mode_confirm: "walk"}` for one winning entry, `{}` when it has nothing to contribute. */
export function userInputFieldOf(entry: UserInputEntry): UserInputMap {
  const value = userInputValue(entry);
  return value === undefined ? {} : { [inputName(entry.metadata.key)]: value };
}
