import type { EmissionEntry, ImportSkip } from './emission-entry.js';

/** `itinera import --uuid / --token`: which of the dump's users is imported, and under which uuid. */
export interface OneUser {
  /** The dump's user to import (`--uuid`); undefined: the first user the dump holds, and no other. */
  from: string | undefined;
  /** The uuid its entries go under: the account of `--token` when it exists, else `from` or a new one. */
  into: string;
}

/**
 * The entries of one user of a dump, moved under `into`; every entry of another user is skipped with why. An operator
 * names the user and the account, so a dump of many users (or a crafted one) never adds to an account by accident.
 */
export async function* entriesOfOneUser(
  entries: AsyncIterable<EmissionEntry>,
  choice: OneUser,
  onSkip: (skip: ImportSkip) => void,
): AsyncGenerator<EmissionEntry> {
  let from = choice.from;
  for await (const entry of entries) {
    from ??= entry.userUuid;
    if (entry.userUuid !== from) {
      onSkip({
        file: entry.file,
        reason: `an entry of user ${entry.userUuid}, not of ${from}${choice.from === undefined ? ' (the dump’s first user; --uuid names another)' : ''}`,
      });
      continue;
    }
    yield entry.userUuid === choice.into ? entry : { ...entry, userUuid: choice.into };
  }
}
