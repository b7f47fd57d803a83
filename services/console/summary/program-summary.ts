import type { z } from 'zod';
import type { LabelTripMetricsTable, SectionMetricsTable } from '../../../shared/tables/index.js';
import type { Summary } from '../api/schemas.js';
import type { UserFilter } from '../scope/participant-scope.js';

const DAY = 86_400;
const isoDate = (ts: number) => new Date(ts * 1000).toISOString().slice(0, 10);

export interface ProgramSummaryOptions {
  /** Rows one summary may read (trips plus sections); past it the call is refused, not slow. */
  maxRows: number;
}

/**
 * The program at a glance, from the per-day metric rows the trip builder keeps (one row per trip by local date, one
 * per section by UTC day), never from the trips themselves: trips and active participants per day, distance by
 * sensed mode, and distance by the mode people confirmed (UNLABELED when they did not). With `keep`, only the rows
 * of the participants it keeps count (a program's admin's figures).
 */
export function createProgramSummary(
  deps: { labelTrips: Pick<LabelTripMetricsTable, 'scan'>; sections: Pick<SectionMetricsTable, 'scan'> },
  { maxRows }: ProgramSummaryOptions,
) {
  return async (days: number, keep?: UserFilter, now = Date.now() / 1000): Promise<z.infer<typeof Summary>> => {
    const today = Math.floor(now / DAY) * DAY;
    const dates = Array.from({ length: days }, (_, i) => isoDate(today - (days - 1 - i) * DAY));
    const perDay = new Map(dates.map((d) => [d, { trips: 0, users: new Set<string>() }]));
    const distanceByLabel: Record<string, number> = {};
    const distanceByMode: Record<string, number> = {};
    await deps.labelTrips.scan(
      dates,
      (fact) => {
        if (keep && !keep(fact.userId)) return;
        const day = perDay.get(fact.localDate);
        if (day) {
          day.trips += 1;
          day.users.add(fact.userId);
        }
        const label = fact.modeConfirm || 'UNLABELED';
        distanceByLabel[label] = (distanceByLabel[label] ?? 0) + fact.distance;
      },
      { maxRows, concurrency: 8, what: 'trips' },
    );
    await deps.sections.scan(
      null,
      today - (days - 1) * DAY,
      today + DAY,
      (s) => {
        if (keep && !keep(s.userId)) return;
        distanceByMode[s.mode] = (distanceByMode[s.mode] ?? 0) + s.distance;
      },
      { maxRows, concurrency: 8, what: 'sections' },
    );
    return {
      from: dates[0]!,
      to: dates[dates.length - 1]!,
      perDay: dates.map((date) => ({
        date,
        trips: perDay.get(date)!.trips,
        activeUsers: perDay.get(date)!.users.size,
      })),
      distanceByMode,
      distanceByLabel,
    };
  };
}
