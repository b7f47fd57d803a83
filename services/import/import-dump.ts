import { acceptPutEntries, PutRejection, toRecordsWithin, type UsercacheRecord } from '../../shared/events/index.js';
import { batchByUser } from './domain/batch-by-user.js';
import type { EmissionEntry, ImportSkip } from './domain/emission-entry.js';
import { isRawPhoneKey, toPhoneEntry } from './domain/phone-entry.js';

/** What the import needs of the accounts: an Itinera user for each e-mission uuid, the same uuid. */
export interface ImportAccounts {
  /**
   * Makes sure the user exists under this uuid (registered with `token` when new). Returns false for a uuid that
   * cannot be imported: a deleted account, a token already registered under another uuid, or an existing account
   * whose token `owns` does not accept (a dump naming someone else's uuid must not add to their account). A new
   * account is dated `since`, the earliest entry of the user's first batch: it keeps the age it had where it came from, which
   * the aggregates' history rule reads.
   */
  ensure(uuid: string, token: string, owns: (existingToken: string) => boolean, since?: Date): Promise<boolean>;
}

export interface ImportDeps {
  accounts: ImportAccounts;
  /** Publishes one user's records on the usercache topic, resolving once Kafka holds them (the gateway's publisher). */
  publisher: { publish(userId: string, records: readonly UsercacheRecord[]): Promise<unknown> };
  /** The token a user is registered with (e-mission's `Stage_uuids` mapping); the uuid itself when unknown. */
  tokenOf: (uuid: string) => string;
  /**
   * Whether an account that exists already under the uuid is the one this dump's user is: by default when its
   * token is the one the import would give it (a rerun of the same import). `--merge` accepts any.
   */
  owns?: (uuid: string, existingToken: string) => boolean;
  now: () => number;
}

export interface ImportCounts {
  users: number;
  /** Entries published to the usercache topic, as a put from the phone would be. */
  pushed: number;
  /** e-mission's own derived entries (trips, sections, inferences…): Itinera derives its own from the raw ones. */
  derived: number;
  /** Entries a put would refuse (with why, through `onSkip`), and entries of users that cannot be imported. */
  refused: number;
}

/** The earliest `metadata.write_ts` (seconds) of some entries, as a date; undefined when none has one. */
function earliestWrite(entries: readonly EmissionEntry[]): Date | undefined {
  let earliest = Infinity;
  for (const entry of entries) {
    const ts = entry.metadata['write_ts'];
    if (typeof ts === 'number' && Number.isFinite(ts) && ts > 0 && ts < earliest) earliest = ts;
  }
  return earliest === Infinity ? undefined : new Date(earliest * 1000);
}

/** Entries published at once: the size of a large phone sync, far below the topic's batch limits. */
const BATCH = 2000;

/**
 * Pushes an e-mission dump through the real ingest path: every raw phone entry, checked by the same rules as
 * `/usercache/put`, is published to the usercache topic under its e-mission uuid; the converter and the trip builder
 * then do what they do for a phone. Re-running it duplicates nothing: the timeseries keeps one row per entry
 * identity (user, key, type, write_ts). Memory holds one batch.
 */
export async function importDump(
  deps: ImportDeps,
  entries: AsyncIterable<EmissionEntry>,
  onSkip: (skip: ImportSkip) => void = () => {},
): Promise<ImportCounts> {
  const counts: ImportCounts = { users: 0, pushed: 0, derived: 0, refused: 0 };
  const known = new Map<string, boolean>();
  for await (const batch of batchByUser(entries, BATCH)) {
    const { userUuid } = batch;
    let importable = known.get(userUuid);
    if (importable === undefined) {
      const token = deps.tokenOf(userUuid);
      const owns = deps.owns ?? ((_uuid: string, existing: string) => existing === token);
      importable = await deps.accounts.ensure(
        userUuid,
        token,
        (existing) => owns(userUuid, existing),
        earliestWrite(batch.entries),
      );
      known.set(userUuid, importable);
      if (importable) counts.users += 1;
      else
        onSkip({
          file: batch.entries[0]?.file ?? '',
          reason: `user ${userUuid} cannot be imported (deleted, its token belongs to another uuid, or the account under this uuid has another token: --merge to add to it)`,
        });
    }
    if (!importable) {
      counts.refused += batch.entries.length;
      continue;
    }
    const accepted = [];
    for (const entry of batch.entries) {
      if (!isRawPhoneKey(String(entry.metadata['key']))) {
        counts.derived += 1;
        continue;
      }
      const checked = acceptPutEntries([toPhoneEntry(entry)], 1);
      const records = checked instanceof PutRejection ? checked : toRecordsWithin(userUuid, checked, deps.now());
      if (records instanceof PutRejection) {
        counts.refused += 1;
        onSkip({ file: entry.file, reason: records.message.replace('phone_to_server[0]', 'entry') });
        continue;
      }
      accepted.push(...records);
    }
    await deps.publisher.publish(userUuid, accepted);
    counts.pushed += accepted.length;
  }
  return counts;
}
