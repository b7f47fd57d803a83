import pLimit from 'p-limit';
import type { Cql } from '../../../shared/cassandra/index.js';
import { OverloadedError } from '../../../shared/errors/index.js';
import {
  createCompositeEntriesTable,
  createDiaryDaysTable,
  createLabelTripMetricsTable,
  createSectionMetricsTable,
} from '../../../shared/tables/index.js';
import type { DiaryReader } from '../stores.js';

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
  const compositeEntries = createCompositeEntriesTable(cql);
  const sectionMetrics = createSectionMetricsTable(cql);
  const labelMetrics = createLabelTripMetricsTable(cql);
  return {
    timeline: (userId, localDate) => diaryDays.read(userId, localDate),

    composites: (userId, fromEndTs, toEndTs, options) => compositeEntries.range(userId, fromEndTs, toEndTs, options),

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
