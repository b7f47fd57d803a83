import { z } from 'zod';
import { MAX_PLAUSIBLE_TS, parseIsoDay } from '../../../shared/time/index.js';
import { json, StoredEntry, Token } from './phone-schemas.js';
import { routeGroup, USER_CALL_REFUSALS } from './phone-route.js';
import { userBodyCall } from './user-body-call.js';

/** routes/results.ts: what the phone reads of its own trips, of the pipeline's progress, and of its raw data. */

/** A trip-local date; strict, because Date.parse('2003-02-31') is 3 March and would serve another day's trips. */
export const TripDay = z
  .string()
  .refine((day) => parseIsoDay(day) !== undefined, 'an existing date YYYY-MM-DD from 1970 on')
  .meta({ description: 'An existing date YYYY-MM-DD from 1970 on', example: '2024-05-17' });

/** How find_entries reads its range: both read timestamps; e-mission's local-date form is refused (400). */
export const FindTimeType = z.enum(['timestamp', 'local_date']);

const FindEntries = z
  .looseObject({
    user: Token,
    key_list: z
      .array(z.string())
      .nullable()
      .optional()
      .meta({ description: 'The keys asked (`analysis/composite_trip` included); null or absent: every raw key' }),
    key_time: z
      .string()
      .optional()
      .meta({ description: 'The time field the range applies to', default: 'metadata.write_ts' }),
    start_time: z.number().optional().meta({ description: 'Seconds; negative means from the beginning', default: 0 }),
    end_time: z
      .number()
      .min(0)
      .lt(MAX_PLAUSIBLE_TS)
      .optional()
      .meta({ description: 'Seconds; a day after now when absent' }),
    max_entries: z.int().positive().nullable().optional(),
    trunc_method: z
      .enum(['first', 'last', 'sample'])
      .optional()
      .meta({ description: 'Which entries max_entries keeps', default: 'sample' }),
  })
  .meta({ id: 'FindEntries' });

const PipelineRange = z.object({ start_ts: z.number().nullable(), end_ts: z.number().nullable() });

export const diaryApi = routeGroup('diary', [
  userBodyCall({
    path: '/timeline/getTrips/:day',
    summary: 'The trips of one trip-local day, as the trip builder wrote them',
    params: z.object({ day: TripDay }),
    answers: {
      200: {
        description: 'The day’s trips',
        content: json(z.object({ timeline: z.array(z.looseObject({})) }).meta({ id: 'Timeline' })),
      },
    },
    refusals: { ...USER_CALL_REFUSALS, 400: 'A malformed body, or a day that is no existing date' },
  }),
  userBodyCall({
    path: '/pipeline/get_complete_ts',
    summary: 'Up to when the user’s data is processed into trips',
    answers: {
      200: {
        description: 'Seconds; null before anything is processed',
        content: json(z.object({ complete_ts: z.number().nullable() })),
      },
    },
  }),
  userBodyCall({
    path: '/pipeline/get_range_ts',
    summary: 'The start of the first trip and the end of the last',
    answers: { 200: { description: 'Seconds; nulls before any trip', content: json(PipelineRange) } },
  }),
  {
    method: 'post',
    path: '/datastreams/find_entries/:timeType',
    summary: 'The user’s own entries of some keys over a time range',
    description:
      'Raw entries come from the timeseries, analysis entries (composite trips and what they hold) from the trip builder. An answer is bounded in entries and in bytes: past either, a 400 naming the limit rather than a silently cut list, unless max_entries with first or last asks for a cut.',
    params: z.object({ timeType: FindTimeType }),
    body: FindEntries,
    example: {
      user: 'alice@example.org',
      key_list: ['background/location'],
      start_time: 1_700_000_000,
      end_time: 1_700_086_400,
    },
    validatedBy: 'domain/parse-find-entries-query.ts parseFindEntriesQuery',
    answers: {
      200: {
        description: 'The entries, in time order',
        content: json(z.object({ phone_data: z.array(StoredEntry) }).meta({ id: 'PhoneData' })),
      },
    },
    refusals: {
      ...USER_CALL_REFUSALS,
      400: 'A malformed query, a local-date query, or more entries or bytes match than one answer holds (`limit`)',
      404: 'A time type other than timestamp or local_date',
    },
  },
]);
