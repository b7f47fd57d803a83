import type { z } from 'zod';
import type { CompositeEntriesTable, TripLabelCountsTable } from '../../../shared/tables/index.js';
import type { TimeseriesReader } from '../../../shared/timeseries/index.js';
import type { Day, SectionPoints } from '../api/schemas.js';
import { dayTripsFrom } from './day-from-composites.js';

/** Composites one day may hold: a heavy traveller has 30; this bounds a corrupt or hostile account's day. */
const MAX_COMPOSITES = 500;
/** Raw points of one section drawn on demand (a 12-hour section at 30 s is 1,440). */
const MAX_POINTS = 5000;
const DAY = 86_400;

export interface DayReader {
  day(userId: string, date: string): Promise<z.infer<typeof Day>>;
  sectionPoints(userId: string, start: number, end: number): Promise<z.infer<typeof SectionPoints>>;
}

export function createDayReader(deps: {
  composites: Pick<CompositeEntriesTable, 'range'>;
  labelCounts: Pick<TripLabelCountsTable, 'dates'>;
  timeseries: Pick<TimeseriesReader, 'find'>;
}): DayReader {
  return {
    async day(userId, date) {
      // A trip's local date is within a day of its UTC end: read the composites ending around the date, keep its own.
      const midnight = Date.parse(`${date}T00:00:00Z`) / 1000;
      const entries: Record<string, unknown>[] = [];
      for await (const c of deps.composites.range(userId, midnight - DAY, midnight + 2 * DAY)) {
        if (c.localDate !== date) continue;
        entries.push(JSON.parse(c.json) as Record<string, unknown>);
        if (entries.length >= MAX_COMPOSITES) break;
      }
      const dates = (await deps.labelCounts.dates(userId)).sort();
      const timeZone = (entries[0]?.['metadata'] as { time_zone?: string } | undefined)?.time_zone ?? null;
      return {
        userId,
        date,
        timeZone,
        previousDate: dates.filter((d) => d < date).at(-1) ?? null,
        nextDate: dates.find((d) => d > date) ?? null,
        trips: dayTripsFrom(entries),
      };
    },
    async sectionPoints(userId, start, end) {
      const found = await deps.timeseries.find(userId, ['background/filtered_location'], 'data.ts', start, end, {
        limit: MAX_POINTS,
        maxPartitions: 8,
      });
      const points = found.map((json) => {
        const d = (JSON.parse(json) as { data: Record<string, unknown> }).data;
        return {
          ts: Number(d['ts']),
          lon: Number(d['longitude']),
          lat: Number(d['latitude']),
          accuracy: typeof d['accuracy'] === 'number' ? d['accuracy'] : null,
        };
      });
      return { points, truncated: points.length >= MAX_POINTS };
    },
  };
}
