import type { z } from 'zod';
import type { Participant, ParticipantsQuery } from '../api/schemas.js';
import { inScope, type ProgramScope } from '../scope/program-scope.js';

/** What the index holds of one participant: the answer's row, with the token in full. */
export type ParticipantRow = z.infer<typeof Participant>;
export type ParticipantsRequest = z.infer<typeof ParticipantsQuery>;
type SortKey = ParticipantsRequest['sort'];

/** The token as the list shows it: enough to tell participants apart and to match what a participant reads out. */
export function maskToken(token: string): string {
  if (token.length <= 8) return `${token.slice(0, 2)}…`;
  return `${token.slice(0, 4)}…${token.slice(-2)}`;
}

/**
 * Rows of tokens as a reader gets them: masked, newest first by `time`, and rows that tie on it in the order of what
 * the reader sees. Left in the table's order, tying rows would come in the order of their tokens' hidden parts.
 */
export function maskedNewestFirst<T extends { token: string }>(rows: readonly T[], time: keyof T & string): T[] {
  const visible = (r: T) => JSON.stringify(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : 1)));
  return rows
    .map((r) => ({ ...r, token: maskToken(r.token) }))
    .map((r) => ({ r, key: visible(r), t: Number(r[time]) }))
    .sort((a, b) => b.t - a.t || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ r }) => r);
}

/**
 * Tokens sort by what the list shows of them: sorting by the whole token would let anyone who pages through the
 * list learn the order, and so the letters, of the part it hides.
 */
const value = (row: ParticipantRow, key: SortKey): string | number | null =>
  key === 'token' ? maskToken(row.token) : row[key];

/** Ascending, nulls (never pushed, no trip) last in both directions: an operator looks for those separately. */
function compare(key: SortKey, dir: 'asc' | 'desc') {
  const sign = dir === 'asc' ? 1 : -1;
  return (a: ParticipantRow, b: ParticipantRow): number => {
    const x = value(a, key);
    const y = value(b, key);
    if (x === y) return a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0;
    if (x === null) return 1;
    if (y === null) return -1;
    return (x < y ? -1 : 1) * sign;
  };
}

export interface SearchOptions {
  /** Match the search inside tokens (operators); otherwise a token must be given whole. */
  searchTokens?: boolean;
  /** Only participants of these programs (a program's admin); absent: everyone. */
  programs?: ProgramScope;
}

/**
 * Sorted orders of one snapshot of the index, computed once per (key, direction) and kept until the next snapshot:
 * paging through 100,000 participants sorts once, then slices.
 */
export class ParticipantSnapshot {
  private readonly sorted = new Map<string, ParticipantRow[]>();

  constructor(
    readonly rows: readonly ParticipantRow[],
    readonly asOf: number,
  ) {}

  page({ page, size, sort, dir, q }: ParticipantsRequest, { searchTokens = false, programs }: SearchOptions = {}) {
    const key = `${sort}:${dir}`;
    let ordered = this.sorted.get(key);
    if (!ordered) {
      ordered = [...this.rows].sort(compare(sort, dir));
      this.sorted.set(key, ordered);
    }
    // The scope first: a search, and the total it answers, never reach another program's participants.
    const visible = programs === undefined ? ordered : ordered.filter((r) => inScope(programs, r.program));
    const needle = q.trim().toLowerCase();
    const matches = (r: ParticipantRow) =>
      r.userId.includes(needle) ||
      (searchTokens ? r.token.toLowerCase().includes(needle) : r.token.toLowerCase() === needle);
    const matching = needle === '' ? visible : visible.filter(matches);
    const rows = matching.slice(page * size, (page + 1) * size).map((r) => ({ ...r, token: maskToken(r.token) }));
    return { total: matching.length, page, size, asOf: this.asOf, rows };
  }
}
