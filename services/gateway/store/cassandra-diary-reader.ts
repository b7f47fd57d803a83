import pLimit from 'p-limit';
import type { Cql } from '../../../shared/cassandra/index.js';
import { OverloadedError } from '../../../shared/errors/index.js';
import {
  createCompositeDaysTable,
  createDiaryDaysTable,
  createLabelTripMetricsTable,
  createSectionMetricsTable,
} from '../../../shared/tables/index.js';
import type { CompositeDay } from '../domain/derived-entries.js';
import type { LabelTripFact } from '../domain/label-metrics.js';
import type { SectionFact } from '../domain/metrics-summary.js';

export interface SectionScanOptions {
  /**
   * Rows a scan may read before it is refused: an aggregate reads every user's sections of every day asked, and
   * a large deployment has far more than one request should touch (100,000 users make about a million a day).
   */
  maxSections: number;
  /** Day partitions read at once. @defaultValue 2 */
  concurrency?: number;
}

/** What the trip builder wrote for the phone to read: a day's timeline and the built sections' facts. */
export interface DiaryReader {
  /** The trips of one trip-local date, as getTrips returns them. */
  timeline(userId: string, localDate: string): Promise<unknown[]>;
  /**
   * The composite-trip entries of the trip-local dates from `fromDate` to `toDate` (YYYY-MM-DD, inclusive), one
   * date at a time, oldest first (or newest first): the caller stops reading when it has enough.
   */
  compositeDays(
    userId: string,
    fromDate: string,
    toDate: string,
    options?: { newestFirst?: boolean },
  ): AsyncIterable<CompositeDay>;
  /**
   * Hands every section starting in [startTs, endTs], of one user or (null) of everyone, to `visit`, as rows
   * stream in: nothing is collected. Throws a ValidationError naming the limit past `maxSections` rows.
   */
  scanSections(
    userId: string | null,
    startTs: number,
    endTs: number,
    visit: (section: SectionFact) => void,
    options: SectionScanOptions,
  ): Promise<void>;
  /**
   * Hands every user's confirmed-trip row of the label metrics (shared/tables) of the trip-local dates given (YYYY-MM-DD) to
   * `visit`, as rows stream in, a bounded number of day partitions at once. Throws a ValidationError naming the
   * limit past `maxSections` rows (here: trips).
   */
  scanLabelTrips(
    localDates: readonly string[],
    visit: (trip: LabelTripFact) => void,
    options: SectionScanOptions,
  ): Promise<void>;
}

export interface DiaryReaderOptions {
  /**
   * Scans over every user's rows (the aggregate metrics) run one at a time per gateway, each reading at most
   * `concurrency` day partitions: a client repeating the heaviest aggregate can then occupy one slot of Cassandra,
   * never all of it, and the phones' puts and reads keep their share of the machine. @defaultValue 1
   */
  aggregateScansAtOnce?: number;
  /** Aggregate scans waiting for their turn; one more is refused with 503 OVERLOADED. @defaultValue 4 */
  aggregateScansQueued?: number;
}

export function createCassandraDiaryReader(
  cql: Cql,
  { aggregateScansAtOnce = 1, aggregateScansQueued = 4 }: DiaryReaderOptions = {},
): DiaryReader {
  const aggregateSlots = pLimit(aggregateScansAtOnce);
  /** Runs an all-users scan in its turn, or refuses it at once when too many wait. */
  const aggregate = <T>(scan: () => Promise<T>): Promise<T> => {
    if (aggregateSlots.activeCount + aggregateSlots.pendingCount >= aggregateScansAtOnce + aggregateScansQueued)
      throw new OverloadedError('the gateway is busy with other aggregate queries; retry later', {
        details: { running: aggregateSlots.activeCount, waiting: aggregateSlots.pendingCount },
      });
    return aggregateSlots(scan);
  };
  const diaryDays = createDiaryDaysTable(cql);
  const compositeDays = createCompositeDaysTable(cql);
  const sectionMetrics = createSectionMetricsTable(cql);
  const labelMetrics = createLabelTripMetricsTable(cql);
  return {
    timeline: (userId, localDate) => diaryDays.read(userId, localDate),

    compositeDays: (userId, fromDate, toDate, options) =>
      compositeDays.days(userId, fromDate, toDate, options) as AsyncIterable<CompositeDay>,

    async scanSections(userId, startTs, endTs, visit, { maxSections, concurrency = 2 }) {
      const scan = () =>
        sectionMetrics.scan(userId, startTs, endTs, visit, { maxRows: maxSections, concurrency, what: 'sections' });
      await (userId ? scan() : aggregate(scan));
    },

    async scanLabelTrips(localDates, visit, { maxSections, concurrency = 2 }) {
      await aggregate(() => labelMetrics.scan(localDates, visit, { maxRows: maxSections, concurrency, what: 'trips' }));
    },
  };
}
