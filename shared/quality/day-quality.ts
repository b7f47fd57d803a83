import type { ParticipantDaysTable, TripLabelCountsTable } from '../tables/index.js';
import { ValidationError } from '../errors/index.js';
import { daysSpanned, shiftIsoDay } from '../time/calendar.js';
import { scoreDays, type DayScore } from './day-score.js';

/** A day's completeness with the share of its trips labelled (trip-local dates, as the trip builder counts them). */
export interface DayQuality extends DayScore {
  trips: number;
  labelledTrips: number;
}

export interface ParticipantQuality {
  userId: string;
  /** The participant's latest local day with anything sensed; null: nothing yet. */
  latestDate: string | null;
  days: DayQuality[];
}

/** The participant's days from `from` to `to` (local dates, both included; `to` defaults to the latest day). */
export type DayQualityReader = (
  userId: string,
  range: { from?: string | undefined; to?: string | undefined },
) => Promise<ParticipantQuality>;

/** Days read before the range, to learn the state its first day began in (the phone may sit at home for days). */
const STATE_LOOKBACK_DAYS = 7;
/** Days a range without a start covers, its last included. */
export const DEFAULT_QUALITY_DAYS = 14;

/**
 * Scores a participant's days (day-score.ts) from what the converter recorded of them, with the trip builder's
 * counts of trips and labelled trips: a few partition reads whatever the range. A range longer than `maxDays`, once
 * its defaults are filled in, is refused (400).
 */
export function createDayQualityReader(
  tables: {
    participantDays: Pick<ParticipantDaysTable, 'read' | 'span'>;
    labelCounts: Pick<TripLabelCountsTable, 'between'>;
  },
  { maxDays }: { maxDays: number },
): DayQualityReader {
  return async (userId, range) => {
    const span = await tables.participantDays.span(userId);
    if (span === undefined) return { userId, latestDate: null, days: [] };
    const to = range.to ?? span.latest;
    const asked = range.from ?? shiftIsoDay(to, 1 - DEFAULT_QUALITY_DAYS);
    if (asked > to) throw new ValidationError(`from (${asked}) is after to (${to})`);
    if (daysSpanned(asked, to) > maxDays)
      throw new ValidationError(`at most ${maxDays} days at once (${asked} to ${to})`);
    // Before the participant's first day there is nothing to score, not a day without data.
    const from = asked < span.first ? span.first : asked;
    const [sensed, counts] = await Promise.all([
      tables.participantDays.read(userId, shiftIsoDay(from, -STATE_LOOKBACK_DAYS), to),
      tables.labelCounts.between(userId, from, to),
    ]);
    const days = scoreDays(sensed, { from, to, latestDate: span.latest }).map((d) => {
      const c = counts.get(d.localDate);
      return { ...d, trips: c?.totalTrips ?? 0, labelledTrips: c?.labeledTrips ?? 0 };
    });
    return { userId, latestDate: span.latest, days };
  };
}
