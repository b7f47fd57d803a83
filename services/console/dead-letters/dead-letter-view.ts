import pLimit from 'p-limit';
import type { z } from 'zod';
import type { DeadLetter as DeadLetterRow, ErrorTimeseries } from '../../../shared/timeseries/index.js';
import { reasonGroup } from '../../../shared/timeseries/index.js';
import type { DeadLetter, DeadLetterSummary, DeadLettersQuery } from '../api/schemas.js';
import { maskToken } from '../participants/query-participants.js';
import type { UserFilter } from '../scope/participant-scope.js';
import { lettersPerUser, summarizeTally, tallyLetters, type LetterTally } from './letter-tally.js';

/** Dead letters one count reads at most: past it the page says "at least". */
const MAX_COUNTED = 200_000;
/** Dead letters (identity and reason only) one list request reads at most while looking for matches. */
const MAX_SCANNED = 20_000;
/** Characters of an entry's JSON shown in the list (an entry can be 4 MiB). */
const MAX_ENTRY_CHARS = 20_000;
/** Dead letters read at once for one list (each up to 4 MiB). */
const READS_AT_ONCE = 8;
/** A count is reused this long: several pages and the participant index ask for it within seconds. */
const TALLY_TTL_MS = 10_000;

type Ref = Pick<DeadLetterRow, 'user_id' | 'key' | 'write_ts' | 'type'>;

export interface DeadLetterView {
  /** Counts by key and reason of the letters of the participants `visible` keeps (every letter without it). */
  summary(visible?: UserFilter): Promise<z.infer<typeof DeadLetterSummary>>;
  byUser(): Promise<ReadonlyMap<string, number>>;
  /** The letters, of the participants `visible` keeps only when given. */
  list(query: z.infer<typeof DeadLettersQuery>, visible?: UserFilter): Promise<z.infer<typeof DeadLetter>[]>;
  /** Forget the cached count (after a replay). */
  invalidate(): void;
}

export function createDeadLetterView(deps: {
  errors: Pick<ErrorTimeseries, 'all' | 'refs' | 'get'>;
  tokenOf: (userId: string) => string | undefined;
}): DeadLetterView {
  const reads = pLimit(READS_AT_ONCE);
  // One count in flight at a time, reused for TALLY_TTL_MS after it ends: a long count is never started twice.
  type Counted = { tally: LetterTally; perUser: Map<string, number> };
  let cached: { doneAt: number | undefined; tally: Promise<Counted> } | undefined;
  const tally = () => {
    const fresh = cached && (cached.doneAt === undefined || Date.now() - cached.doneAt < TALLY_TTL_MS);
    if (!cached || !fresh) {
      const entry: { doneAt: number | undefined; tally: Promise<Counted> } = {
        doneAt: undefined,
        tally: tallyLetters(deps.errors.refs(), MAX_COUNTED).then((t) => ({ tally: t, perUser: lettersPerUser(t) })),
      };
      entry.tally.then(
        () => {
          entry.doneAt = Date.now();
        },
        () => {
          if (cached === entry) cached = undefined;
        },
      );
      cached = entry;
    }
    return cached.tally;
  };
  /** Unfiltered, the first letters are the answer: read whole, a page at a time (ErrorTimeseries.all). */
  async function first(limit: number): Promise<DeadLetterRow[]> {
    const letters: DeadLetterRow[] = [];
    for await (const l of deps.errors.all()) {
      letters.push(l);
      if (letters.length >= limit) break;
    }
    return letters;
  }

  /**
   * Filtered, only identities and reasons are read to find the matches (a filter may pass over thousands of letters
   * of up to 4 MiB each), then the matches' payloads, a few at a time, in the scan's order.
   */
  async function matching(
    limit: number,
    key?: string,
    reason?: string,
    visible?: UserFilter,
  ): Promise<(DeadLetterRow | undefined)[]> {
    const matches: Ref[] = [];
    let scanned = 0;
    const wanted = reason?.toLowerCase();
    for await (const ref of deps.errors.refs()) {
      if (++scanned > MAX_SCANNED || matches.length >= limit) break;
      if (visible && !visible(ref.user_id)) continue;
      if (key !== undefined && ref.key !== key) continue;
      if (wanted !== undefined && !reasonGroup(ref.reason).toLowerCase().includes(wanted)) continue;
      matches.push(ref);
    }
    return Promise.all(
      matches.map((ref) => reads(() => deps.errors.get(ref.user_id, ref.key, ref.write_ts, ref.type))),
    );
  }

  return {
    async summary(visible) {
      return summarizeTally((await tally()).tally, visible);
    },
    async byUser() {
      return (await tally()).perUser;
    },
    async list({ limit, key, reason }, visible) {
      // A scope is a filter like the others: only identities are read until a letter of the scope is found.
      const letters =
        key === undefined && reason === undefined && visible === undefined
          ? await first(limit)
          : await matching(limit, key, reason, visible);
      return letters.flatMap((l) => {
        if (!l) return [];
        const entry = `{"metadata":${l.metadata_json},"data":${l.data_json}}`;
        return [
          {
            userId: l.user_id,
            key: l.key,
            writeTs: l.write_ts,
            type: l.type,
            reason: l.reason,
            failedTs: Number.isFinite(l.failed_ts) ? l.failed_ts : null,
            entry: entry.length > MAX_ENTRY_CHARS ? `${entry.slice(0, MAX_ENTRY_CHARS)}…` : entry,
            token: maskToken(deps.tokenOf(l.user_id) ?? l.user_id),
          },
        ];
      });
    },
    invalidate() {
      cached = undefined;
    },
  };
}
