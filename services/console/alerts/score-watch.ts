import type { DayQualityReader } from '../../../shared/quality/day-quality.js';
import type { Logger } from '../../../shared/logger/index.js';
import { forEachBounded } from '../../../shared/runtime/for-each-bounded.js';
import type { ParticipantRow } from '../participants/query-participants.js';
import { lowScoreStreak, type LowScoreStreak } from './domain/score-streaks.js';

/** Participants read at once: each costs three small partition reads. */
const READS_AT_ONCE = 16;
/** A day's score changes as its data arrives, but a run of low days is counted in days: hourly is often enough. */
const REFRESH_S = 3600;

export interface ScoreWatch {
  /**
   * Every participant's run of low days, read again when the last read is an hour old (the first call waits for it;
   * later ones answer the last read while the next is made). A failed read keeps the last map and is logged.
   */
  lowScores(rows: readonly ParticipantRow[], now: number): Promise<ReadonlyMap<string, LowScoreStreak>>;
}

/** The low_score rule's source: each participant's recent days (the 14 up to the latest) scored now and then. */
export function createScoreWatch(d: { quality: DayQualityReader; logger: Logger }): ScoreWatch {
  let streaks: ReadonlyMap<string, LowScoreStreak> | undefined;
  let readAt = -Infinity;
  let reading: Promise<void> | undefined;

  async function read(rows: readonly ParticipantRow[]) {
    const next = new Map<string, LowScoreStreak>();
    await forEachBounded(rows, READS_AT_ONCE, async ({ userId }) => {
      const { latestDate, days } = await d.quality(userId, {});
      const streak = latestDate === null ? undefined : lowScoreStreak(days, latestDate);
      if (streak) next.set(userId, streak);
    });
    streaks = next;
  }

  return {
    async lowScores(rows, now) {
      if (now - readAt >= REFRESH_S && !reading) {
        readAt = now;
        reading = read(rows)
          .catch((err: unknown) => {
            d.logger.warn('Day scores not read; the last ones stand', { error: String(err) });
          })
          .finally(() => {
            reading = undefined;
          });
      }
      if (streaks === undefined) await reading;
      return streaks ?? new Map();
    },
  };
}
