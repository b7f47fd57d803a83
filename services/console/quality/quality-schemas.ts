import { z } from 'zod';
import { DayParams } from '../api/schemas.js';
import { QUARTER_CLASSES } from '../../../shared/quality/day-score.js';

/*
 * The completeness of a participant's days (shared/quality/day-score.ts states the rule): each local day's score, its
 * quarter-hours by class, its gaps and why, the share of its trips labelled, and the battery at its last reading.
 */

/** The most days one call answers: a quarter of a year. */
export const MAX_QUALITY_DAYS = 92;

const isoDate = DayParams.shape.date;

export const QualityParams = DayParams.pick({ userId: true });

export const QualityQuery = z.object({
  from: isoDate.optional().meta({ description: 'first local date; default: 13 days before `to`; at most 92 days' }),
  to: isoDate.optional().meta({ description: 'last local date; default: the participant’s latest day with data' }),
});

const GapReason = z.enum(['tracking_off', 'no_locations', 'no_data']);

export const DayQuality = z
  .object({
    localDate: z.string(),
    score: z.number().min(0).max(1).nullable(),
    considered: z.number().int().meta({ description: 'quarter-hours judged: 96, fewer on the latest day' }),
    quarters: z.record(z.enum(QUARTER_CLASSES), z.number().int()),
    hoursWithLocations: z.number().int(),
    gaps: z.array(z.object({ from: z.string(), to: z.string(), reason: GapReason })),
    strip: z.string().meta({
      description:
        'one letter per considered quarter-hour: L located, P at a place, T tracking off, M no locations, N no data',
    }),
    battery: z.object({ pct: z.number(), ts: z.number() }).nullable(),
    trips: z.number().int(),
    labelledTrips: z.number().int(),
  })
  .meta({ id: 'DayQuality' });

export const ParticipantQuality = z
  .object({
    userId: z.string(),
    latestDate: z.string().nullable(),
    days: z.array(DayQuality),
  })
  .meta({ id: 'ParticipantQuality' });
