import type { DayScore } from '../../../../shared/quality/day-score.js';

/** Below this a day's completeness score counts as a low day (docs/data-quality.md states the score). */
export const LOW_SCORE = 0.5;

/** A participant's run of low days up to their last whole day: how many, and from the start of the first. */
export interface LowScoreStreak {
  days: number;
  /** The first low day (YYYY-MM-DD, the participant's local date): the day the alert links to. */
  firstDate: string;
  /** Unix seconds: midnight UTC of that date, which names the episode (every console computes the same). */
  since: number;
}

/**
 * The run of consecutive low days (score below LOW_SCORE) that ends with the participant's last whole day, from their
 * scored days oldest first. The latest day is still filling and is left out; a day without a score (nothing judged)
 * ends the run. Undefined: the last whole day is not low.
 */
export function lowScoreStreak(days: readonly DayScore[], latestDate: string): LowScoreStreak | undefined {
  let count = 0;
  let first: string | undefined;
  for (let i = days.length - 1; i >= 0; i--) {
    const day = days[i]!;
    if (day.localDate >= latestDate) continue;
    if (day.score === null || day.score >= LOW_SCORE) break;
    count += 1;
    first = day.localDate;
  }
  return first === undefined
    ? undefined
    : { days: count, firstDate: first, since: Date.parse(`${first}T00:00:00Z`) / 1000 };
}
