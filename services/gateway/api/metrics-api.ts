import { z } from 'zod';
import { LABEL_DIMENSIONS, LABEL_METRICS } from '../domain/label-metrics.js';
import { METRICS } from '../domain/metrics-summary.js';
import { json, Token } from './phone-schemas.js';
import { BODY_REFUSALS, routeGroup, TOKEN_REFUSALS } from './phone-route.js';

/**
 * routes/metrics.ts: `/result/metrics/<timeType>`, one route whose body and answer depend on the time type:
 * `timestamp` and `local_date` sum the sections the trip builder keeps (the classic dashboard), `yyyy_mm_dd` the
 * labelled trips of every user of the caller's program (the current app's group cards).
 */

export const MetricsTimeType = z.enum(['timestamp', 'local_date', 'yyyy_mm_dd']);

/** Who a call is for: e-mission's rule, without `aggregate` a call without a user is an aggregate call. */
const caller = {
  user: Token.optional(),
  aggregate: z.boolean().optional(),
  is_return_aggregate: z.boolean().optional().meta({ description: 'A user’s own call may ask for the aggregate too' }),
};

const sectionMetrics = {
  metric_list: z.array(z.enum(METRICS)).optional(),
  metric: z
    .union([z.enum(METRICS), z.literal('')])
    .optional()
    .meta({ description: 'The older form: one metric; empty or absent is count' }),
};

const TimestampMetrics = z
  .looseObject({
    ...caller,
    ...sectionMetrics,
    start_time: z.number().min(0).meta({ description: 'Seconds' }),
    end_time: z.number().min(0).meta({ description: 'Seconds; at most two years after start_time' }),
    freq: z.enum(['D', 'd', 'M', 'm', 'MS']).optional().meta({ description: 'Days or months', default: 'D' }),
  })
  .meta({ id: 'TimestampMetricsQuery', description: 'timeType `timestamp`' });

const LocalDate = z
  .object({ year: z.int(), month: z.int().min(1).max(12).optional(), day: z.int().min(1).max(31).optional() })
  .meta({ description: 'A partial date stands for its whole month or year' });

const LocalDateMetrics = z
  .looseObject({
    ...caller,
    ...sectionMetrics,
    start_time: LocalDate,
    end_time: LocalDate,
    freq: z.enum(['DAILY', 'MONTHLY', 'YEARLY']).optional().meta({ default: 'DAILY' }),
  })
  .meta({ id: 'LocalDateMetricsQuery', description: 'timeType `local_date`' });

const Dimensions = z
  .array(z.string())
  .meta({ description: `Dimensions: ${LABEL_DIMENSIONS.join(', ')}; others are skipped` });

const LabelMetrics = z
  .looseObject({
    ...caller,
    start_time: z.iso.date(),
    end_time: z.iso.date().meta({ description: 'At most two years after start_time' }),
    metric_list: z
      .union([
        z.partialRecord(z.enum(LABEL_METRICS), Dimensions),
        z.array(z.union([z.enum(LABEL_METRICS), z.tuple([z.enum(LABEL_METRICS), Dimensions])])),
      ])
      .optional()
      .meta({
        description:
          'An object answers the old form (by metric), a list the new one (by day); default distance, duration and count by mode_confirm',
      }),
    app_config: z
      .looseObject({ label_options: z.unknown() })
      .optional()
      .meta({ description: 'The footprint metric reads its MODE options’ kgCo2PerKm' }),
  })
  .meta({ id: 'LabelMetricsQuery', description: 'timeType `yyyy_mm_dd`' });

/** One bin of one metric: the time it starts, and a value per mode that enough distinct users make. */
const ModeSummary = z
  .looseObject({ ts: z.number(), local_dt: z.looseObject({}).optional(), fmt_time: z.string(), nUsers: z.int() })
  .meta({ id: 'ModeSummary' });

const SectionBins = z.union([z.array(z.array(ModeSummary)), z.array(ModeSummary)]).meta({
  description: 'One list of bins per metric of metric_list; one list only in the older form',
});

const SectionMetricsAnswer = z
  .object({ user_metrics: SectionBins.optional(), aggregate_metrics: SectionBins.optional() })
  .meta({ id: 'SectionMetrics' });

const LabelMetricsDay = z
  .object({
    date: z.string(),
    metric: z.enum(LABEL_METRICS),
    nUsers: z.int(),
    dimensions: z.record(z.string(), z.array(z.object({ value: z.string(), measure: z.unknown() }))),
    last_updated: z.number(),
  })
  .meta({ id: 'LabelMetricsDay' });

const LabelMetricsByMetric = z
  .record(z.string(), z.array(z.looseObject({ date: z.string(), nUsers: z.int() })))
  .meta({ id: 'LabelMetricsByMetric' });

export const metricsApi = routeGroup('metrics', [
  {
    method: 'post',
    path: '/result/metrics/:timeType',
    summary: 'Count, distance, duration and speed by mode, or labelled trips by label and day',
    description:
      'Aggregates count only the caller’s program, only accounts old enough, and only values that enough distinct users make; `aggregate_call_auth` decides who may ask for them. A call is bounded in days (two years) and in rows read.',
    params: z.object({ timeType: MetricsTimeType }),
    body: z.union([TimestampMetrics, LocalDateMetrics, LabelMetrics]),
    example: {
      user: 'alice@example.org',
      metric_list: ['count', 'distance'],
      is_return_aggregate: true,
      start_time: 1_700_000_000,
      end_time: 1_700_604_800,
      freq: 'D',
    },
    validatedBy: 'domain/parse-metrics-query.ts',
    answers: {
      200: {
        description: 'timestamp and local_date: sections’ metrics; yyyy_mm_dd: labelled trips, by metric or by day',
        content: json(z.union([SectionMetricsAnswer, LabelMetricsByMetric, z.array(LabelMetricsDay)])),
      },
    },
    refusals: {
      ...BODY_REFUSALS,
      ...TOKEN_REFUSALS,
      400: 'A malformed query, a range over two years, or more rows to read than one call may (`limit`)',
      401: 'A user’s own call (`aggregate: false`) without a `user` token',
      403: 'A refused token, or an aggregate call without a token where aggregates are for users only',
      404: 'An unknown time type, or aggregates that this server or the caller’s program does not serve',
      503: 'Too many aggregate queries at once, or Cassandra did not answer: retry after `Retry-After`',
    },
  },
]);
