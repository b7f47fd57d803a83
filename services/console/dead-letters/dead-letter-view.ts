import type { z } from 'zod';
import type { DeadLetterTally, ErrorTimeseries } from '../../../shared/timeseries/index.js';
import { reasonGroup } from '../../../shared/timeseries/index.js';
import type { DeadLetter, DeadLetterSummary, DeadLettersQuery } from '../api/schemas.js';
import { maskToken } from '../participants/query-participants.js';

/** Dead letters one count reads at most: past it the page says "at least". */
const MAX_COUNTED = 200_000;
/** Dead letters one list request reads at most while looking for matches of its filter. */
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
  let cached: { at: number; tally: Promise<DeadLetterTally> } | undefined;
  const tally = () => {
    if (!cached || Date.now() - cached.at > TALLY_TTL_MS) {
      const fresh = { at: Date.now(), tally: deps.errors.tally(MAX_COUNTED) };
      fresh.tally.catch(() => {
        if (cached === fresh) cached = undefined;
      });
      cached = fresh;
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
      const rows: z.infer<typeof DeadLetter>[] = [];
      let scanned = 0;
      const wanted = reason?.toLowerCase();
      for await (const l of deps.errors.all()) {
        if (++scanned > MAX_SCANNED) break;
        if (key !== undefined && l.key !== key) continue;
        if (wanted !== undefined && !reasonGroup(l.reason).toLowerCase().includes(wanted)) continue;
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
