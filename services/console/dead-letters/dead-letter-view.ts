import type { z } from 'zod';
import type { DeadLetterTally, ErrorTimeseries } from '../../../shared/timeseries/index.js';
import { reasonGroup } from '../../../shared/timeseries/index.js';
import type { DeadLetter, DeadLetterSummary, DeadLettersQuery } from '../api/schemas.js';
import { maskToken } from '../participants/query-participants.js';

/** Dead letters one count reads at most: past it the page says "at least". */
const MAX_COUNTED = 200_000;
/** Dead letters (identity and reason only) one list request reads at most while looking for matches. */
const MAX_SCANNED = 20_000;
/** Characters of an entry's JSON shown in the list (an entry can be 4 MiB). */
const MAX_ENTRY_CHARS = 20_000;
/** A count is reused this long: several pages and the participant index ask for it within seconds. */
const TALLY_TTL_MS = 10_000;

export interface DeadLetterView {
  summary(): Promise<z.infer<typeof DeadLetterSummary>>;
  byUser(): Promise<ReadonlyMap<string, number>>;
  list(query: z.infer<typeof DeadLettersQuery>): Promise<z.infer<typeof DeadLetter>[]>;
  /** Forget the cached count (after a replay). */
  invalidate(): void;
}

export function createDeadLetterView(deps: {
  errors: ErrorTimeseries;
  tokenOf: (userId: string) => string | undefined;
}): DeadLetterView {
  // One count in flight at a time, reused for TALLY_TTL_MS after it ends: a long count is never started twice.
  let cached: { doneAt: number | undefined; tally: Promise<DeadLetterTally> } | undefined;
  const tally = () => {
    const fresh = cached && (cached.doneAt === undefined || Date.now() - cached.doneAt < TALLY_TTL_MS);
    if (!cached || !fresh) {
      const entry: { doneAt: number | undefined; tally: Promise<DeadLetterTally> } = {
        doneAt: undefined,
        tally: deps.errors.tally(MAX_COUNTED),
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
  return {
    async summary() {
      const t = await tally();
      return { total: t.total, truncated: t.truncated, groups: [...t.groups].sort((a, b) => b.count - a.count) };
    },
    async byUser() {
      return (await tally()).byUser;
    },
    async list({ limit, key, reason }) {
      // The filter reads identities and reasons only; the payloads (up to 4 MiB each) of the matches alone.
      const rows: z.infer<typeof DeadLetter>[] = [];
      let scanned = 0;
      const wanted = reason?.toLowerCase();
      for await (const ref of deps.errors.refs()) {
        if (++scanned > MAX_SCANNED) break;
        if (key !== undefined && ref.key !== key) continue;
        if (wanted !== undefined && !reasonGroup(ref.reason).toLowerCase().includes(wanted)) continue;
        const l = await deps.errors.get(ref.user_id, ref.key, ref.write_ts, ref.type);
        if (!l) continue;
        const entry = `{"metadata":${l.metadata_json},"data":${l.data_json}}`;
        rows.push({
          userId: l.user_id,
          key: l.key,
          writeTs: l.write_ts,
          type: l.type,
          reason: l.reason,
          failedTs: Number.isFinite(l.failed_ts) ? l.failed_ts : null,
          entry: entry.length > MAX_ENTRY_CHARS ? `${entry.slice(0, MAX_ENTRY_CHARS)}…` : entry,
          token: maskToken(deps.tokenOf(l.user_id) ?? l.user_id),
        });
        if (rows.length >= limit) break;
      }
      return rows;
    },
    invalidate() {
      cached = undefined;
    },
  };
}
