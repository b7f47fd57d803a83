import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../shared/errors/index.js';
import {
  MAX_METRICS_RANGE_DAYS,
  parseLabelMetricsQuery,
  parseMetricsCall,
  parseSectionMetricsQuery,
} from './parse-metrics-query.js';

const DAY = 86_400;
const T0 = 1_700_006_400; // 2023-11-15T00:00:00Z

function refusal(parse: () => unknown): { message: string; field: unknown } {
  try {
    parse();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return { message: (err as ValidationError).message, field: (err as ValidationError).details['field'] };
  }
  throw new Error('expected a ValidationError');
}

describe('parseMetricsCall', () => {
  it('When no aggregate flag is sent, then a call without a user is an aggregate call (e-mission)', () => {
    expect(parseMetricsCall({})).toEqual({ aggregateCall: true, returnAggregate: undefined });
    expect(parseMetricsCall({ user: 't', is_return_aggregate: false })).toEqual({
      aggregateCall: false,
      returnAggregate: false,
    });
    expect(parseMetricsCall({ user: 't', aggregate: true }).aggregateCall).toBe(true);
  });

  it('When a flag is not a boolean, then 400 naming it', () => {
    expect(refusal(() => parseMetricsCall({ aggregate: 'yes' })).field).toBe('aggregate');
    expect(refusal(() => parseMetricsCall({ is_return_aggregate: 1 })).field).toBe('is_return_aggregate');
  });
});

describe('parseSectionMetricsQuery', () => {
  it('When timestamps are asked by day, then the aggregate covers whole days and the old form is kept', () => {
    const q = parseSectionMetricsQuery('timestamp', { start_time: T0 + 3600, end_time: T0 + 2 * DAY + 60 });
    expect(q).toMatchObject({
      metrics: ['count'],
      oldStyle: true,
      binning: { by: 'timestamp', freq: 'D' },
      startTs: T0 + 3600,
      endTs: T0 + 2 * DAY + 60,
    });
    expect(q.aggregateRange?.startTs).toBe(T0);
    expect(q.aggregateRange!.endTs).toBeGreaterThanOrEqual(T0 + 3 * DAY - 1);
  });

  it("When the specification's form sends an empty or no metric, then the count is asked, not a 400", () => {
    for (const metric of ['', undefined]) {
      const q = parseSectionMetricsQuery('timestamp', { freq: 'D', start_time: T0, end_time: T0 + DAY, metric });
      expect(q.metrics).toEqual(['count']);
      expect(q.oldStyle).toBe(true);
    }
    expect(() => parseSectionMetricsQuery('timestamp', { start_time: T0, end_time: T0 + DAY, metric: ' ' })).toThrow(
      /unknown metric/,
    );
  });

  it('When metric_list repeats names, then each is asked once, in order; the new form needs is_return_aggregate', () => {
    const q = parseSectionMetricsQuery('timestamp', {
      start_time: T0,
      end_time: T0 + 10,
      metric_list: ['distance', 'count', 'distance'],
      is_return_aggregate: true,
    });
    expect(q.metrics).toEqual(['distance', 'count']);
    expect(q.oldStyle).toBe(false);
  });

  it('When local dates are asked, then the read covers the widest zones and keep() holds the asked dates only', () => {
    const q = parseSectionMetricsQuery('local_date', {
      start_time: { year: 2023, month: 11 },
      end_time: { year: 2023, month: 11, day: 15 },
      freq: 'MONTHLY',
    });
    expect(q.binning).toEqual({ by: 'local_date', freq: 'MONTHLY' });
    expect(q.startTs).toBe(Date.UTC(2023, 10, 1) / 1000 - 14 * 3600);
    expect(q.endTs).toBe(Date.UTC(2023, 10, 16) / 1000 + 14 * 3600);
    const section = (ts: number, timeZone: string) => ({ startTs: ts, timeZone }) as never;
    expect(q.keep?.(section(T0 + 12 * 3600, 'UTC'))).toBe(true);
    // 16 November 01:00 in Tokyo is 15 November 16:00 UTC: not asked.
    expect(q.keep?.(section(T0 + 16 * 3600, 'Asia/Tokyo'))).toBe(false);
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ['an unknown metric', { metric_list: ['speed'] }, 'metric_list', /unknown metric "speed"/],
    ['a prototype name as metric', { metric: 'constructor' }, 'metric', /unknown metric/],
    ['a timestamp past 1e10', { start_time: T0, end_time: 2e10 }, 'end_time', /end_time/],
    ['end before start', { start_time: T0, end_time: T0 - 1 }, 'end_time', /before/],
    ['a range over two years', { start_time: T0, end_time: T0 + MAX_METRICS_RANGE_DAYS * DAY }, 'end_time', /731/],
    ['an unknown freq', { start_time: T0, end_time: T0 + 1, freq: 'W' }, 'freq', /freq/],
  ])('When the body has %s, then 400 naming %s', (_name, body, field, message) => {
    const r = refusal(() => parseSectionMetricsQuery('timestamp', { start_time: T0, end_time: T0 + 1, ...body }));
    expect(r.message).toMatch(message);
    if (field !== 'metric_list' && field !== 'metric') expect(r.field).toBe(field);
  });

  it('When a local date names month 13, then 400 naming the field', () => {
    const r = refusal(() =>
      parseSectionMetricsQuery('local_date', { start_time: { year: 2023, month: 13 }, end_time: { year: 2023 } }),
    );
    expect(r.field).toBe('start_time');
  });
});

describe('parseLabelMetricsQuery', () => {
  it('When metric_list is an object (what the app sends), then the old answer form, every day of the range', () => {
    const q = parseLabelMetricsQuery({
      start_time: '2016-02-28',
      end_time: '2016-03-01',
      metric_list: { distance: ['mode_confirm', 'not_a_dimension'], count: ['purpose_confirm'] },
    });
    expect(q.form).toBe('by_metric');
    expect(q.localDates).toEqual(['2016-02-28', '2016-02-29', '2016-03-01']);
    expect(q.metricList).toEqual([
      { metric: 'distance', dimensions: ['mode_confirm'] },
      { metric: 'count', dimensions: ['purpose_confirm'] },
    ]);
    expect(q.footprint).toBeUndefined();
  });

  it('When metric_list is a list, then the new form; a bare name takes the default dimension', () => {
    const q = parseLabelMetricsQuery({
      start_time: '2016-06-01',
      end_time: '2016-06-01',
      metric_list: ['count', ['distance', ['mode']]],
    });
    expect(q.form).toBe('days');
    expect(q.metricList).toEqual([
      { metric: 'count', dimensions: ['mode_confirm'] },
      { metric: 'distance', dimensions: ['mode'] },
    ]);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['a prototype name', JSON.parse('{"metric_list": {"__proto__": ["mode_confirm"]}}'), /unknown metric/],
    ['dimensions that are not a list', { metric_list: { count: 'mode_confirm' } }, /list of dimensions/],
    ['a metric_list that is a string', { metric_list: 'count' }, /must name metrics/],
    ['February 30', { start_time: '2016-02-30' }, /start_time must be an existing day/],
    ['end before start', { start_time: '2016-06-02', end_time: '2016-06-01' }, /before/],
  ])('When the body has %s, then 400', (_name, body, message) => {
    const r = refusal(() => parseLabelMetricsQuery({ start_time: '2016-06-01', end_time: '2016-06-14', ...body }));
    expect(r.message).toMatch(message);
  });
});
