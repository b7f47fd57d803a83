import { LRUCache } from 'lru-cache';
import { refusedTokenKey, utcDay, type ConsoleTokensTable } from '../../../shared/tables/console-tokens.js';

/**
 * The gateway's record of refused tokens (table refused_tokens, which the console lists): attempts are counted in
 * memory and written with a throttle, so a client sending refused tokens, one or many, as fast as it can costs a
 * bounded number of writes and a bounded heap:
 * - a token is written at most once per `perTokenMs` (its first refusal at once, later ones with the next refusal
 *   after that, or by the periodic sweep), each write carrying the tally so far;
 * - at most `maxTokensPerMinute` writes in any minute, whatever the number of tokens: past that, refusals are only
 *   counted, and written when the budget allows (a phone retries, and the sweep writes tallies still pending);
 * - at most `maxTracked` tallies, the least recently refused dropped first (with what they had not written yet).
 */
export interface RefusalLog {
  /** Counts a refusal of the token; never waits and never throws (a failed write goes to `onError`). */
  refused(token: string, reason: string): void;
  /** Stops the periodic sweep. */
  close(): void;
}

export interface RefusalLogOptions {
  /** Least time between two writes of one token. @defaultValue 60000 */
  perTokenMs?: number;
  /** Writes (so distinct tokens) per minute, over all tokens. @defaultValue 100 */
  maxTokensPerMinute?: number;
  /** Tallies kept in memory. @defaultValue 10000 */
  maxTracked?: number;
  /** How often tallies with unwritten attempts are written (0: never, only on a later refusal). @defaultValue 15000 */
  sweepMs?: number;
  /** @defaultValue Date.now */
  now?: () => number;
  onError?: (err: unknown) => void;
}

interface Tally {
  day: number;
  /** Unix seconds. */
  firstTs: number;
  lastTs: number;
  reason: string;
  attempts: number;
  /** attempts when last written. */
  written: number;
  /** Epoch ms of the last write, if any. */
  lastWriteMs: number | undefined;
}

const MINUTE_MS = 60_000;

export function createRefusalLog(
  table: Pick<ConsoleTokensTable, 'recordRefusal'>,
  {
    perTokenMs = 60_000,
    maxTokensPerMinute = 100,
    maxTracked = 10_000,
    sweepMs = 15_000,
    now = Date.now,
    onError = () => undefined,
  }: RefusalLogOptions = {},
): RefusalLog {
  const tallies = new LRUCache<string, Tally>({ max: maxTracked });
  /** Times of the writes of the last minute, oldest first: at most maxTokensPerMinute. */
  const recentWrites: number[] = [];

  function takeBudget(nowMs: number): boolean {
    while (recentWrites.length > 0 && nowMs - recentWrites[0]! >= MINUTE_MS) recentWrites.shift();
    if (recentWrites.length >= maxTokensPerMinute) return false;
    recentWrites.push(nowMs);
    return true;
  }

  function writeIfDue(token: string, tally: Tally, nowMs: number): void {
    if (tally.attempts === tally.written) return;
    if (tally.lastWriteMs !== undefined && nowMs - tally.lastWriteMs < perTokenMs) return;
    if (!takeBudget(nowMs)) return;
    tally.lastWriteMs = nowMs;
    tally.written = tally.attempts;
    table
      .recordRefusal(token, tally.reason, tally.lastTs, { attempts: tally.attempts, firstTs: tally.firstTs })
      .catch(onError);
  }

  const sweep =
    sweepMs > 0
      ? setInterval(() => {
          const nowMs = now();
          for (const [token, tally] of tallies.entries()) writeIfDue(token, tally, nowMs);
        }, sweepMs)
      : undefined;
  sweep?.unref();

  return {
    refused(token, reason) {
      const key = refusedTokenKey(token);
      const nowMs = now();
      const ts = nowMs / 1000;
      const day = utcDay(ts);
      let tally = tallies.get(key);
      if (tally?.day !== day) {
        // A new day is a new row (partition); the throttle carries over, so midnight adds no write.
        tally = { day, firstTs: ts, lastTs: ts, reason, attempts: 0, written: 0, lastWriteMs: tally?.lastWriteMs };
        tallies.set(key, tally);
      }
      tally.attempts += 1;
      tally.lastTs = ts;
      tally.reason = reason;
      writeIfDue(key, tally, nowMs);
    },
    close() {
      if (sweep) clearInterval(sweep);
    },
  };
}
