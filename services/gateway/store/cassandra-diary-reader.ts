import pLimit from 'p-limit';
import { type Cql, ROWS_PER_TURN, yieldToEventLoop } from '../../../shared/cassandra/index.js';
import { OverloadedError, ValidationError } from '../../../shared/errors/index.js';
import { dayOf } from '../../../shared/timeseries/index.js';
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
   * Hands every user's confirmed-trip row of `label_trip_metrics` of the trip-local dates given (YYYY-MM-DD) to
   * `visit`, as rows stream in, a bounded number of day partitions at once. Throws a ValidationError naming the
   * limit past `maxSections` rows (here: trips).
   */
  scanLabelTrips(
    localDates: readonly string[],
    visit: (trip: LabelTripFact) => void,
    options: SectionScanOptions,
  ): Promise<void>;
}

const SECTION_COLUMNS = 'user_id, start_ts, time_zone, mode, distance, duration';
const LABEL_TRIP_COLUMNS =
  'user_id, mode_confirm, purpose_confirm, replaced_mode_confirm, mode, distance, duration, responded';

/**
 * Reads day partitions, at most `concurrency` at once, handing each row to `visit`, and refuses the call past
 * `maxRows` rows: the bounds every aggregate scan over days obeys.
 */
async function scanDayPartitions<K>(
  cql: Cql,
  days: readonly K[],
  statement: (day: K) => { query: string; params: unknown[] },
  visit: (row: Record<string, unknown>, day: K) => void,
  { maxRows, concurrency, what }: { maxRows: number; concurrency: number; what: string },
): Promise<void> {
  const limit = pLimit(concurrency);
  let read = 0;
  let refused: ValidationError | undefined;
  // Set on the first failed day (an outage): Promise.all has rejected and the request is answered, so the days
  // still queued return as they start, and those in flight stop at their next row, rather than read up to 731
  // partitions for nobody. (A flag rather than limit.clearQueue(), which would leave their promises pending.)
  let failed = false;
  const stopped = () => refused !== undefined || failed;
  const scanDay = async (day: K) => {
    const { query, params } = statement(day);
    for await (const r of cql.iterate(query, params, 5000)) {
      if (stopped()) return;
      if (++read > maxRows) {
        refused = new ValidationError(
          `the range holds more than ${maxRows} ${what}, more than one call may read; ask a shorter range`,
          { details: { limit: maxRows } },
        );
        return;
      }
      visit(r, day);
      if (read % ROWS_PER_TURN === 0) await yieldToEventLoop();
    }
  };
  // Bounded: at most `concurrency` day partitions in flight, never one promise per day of the range at once.
  await Promise.all(
    days.map((day) =>
      limit(async () => {
        if (stopped()) return;
        try {
          await scanDay(day);
        } catch (err) {
          failed = true;
          throw err;
        }
      }),
    ),
  );
  if (refused) throw refused;
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
  return {
    async timeline(userId, localDate) {
      const rs = await cql.read('SELECT timeline FROM diary_days WHERE user_id = ? AND local_date = ?', [
        userId,
        localDate,
      ]);
      const row = rs.rows[0];
      return row ? (JSON.parse(String(row['timeline'])) as unknown[]) : [];
    },

    async *compositeDays(userId, fromDate, toDate, { newestFirst = false } = {}) {
      const order = newestFirst ? 'DESC' : 'ASC';
      for await (const row of cql.iterate(
        `SELECT local_date, trips FROM composite_days WHERE user_id = ? AND local_date >= ? AND local_date <= ? ORDER BY local_date ${order}`,
        [userId, fromDate, toDate],
        // A day's entries carry every resampled location: a few days per page keeps a page small.
        20,
      )) {
        yield {
          localDate: String(row['local_date']),
          entries: JSON.parse(String(row['trips'])) as CompositeDay['entries'],
        };
      }
    },

    async scanSections(userId, startTs, endTs, visit, { maxSections, concurrency = 2 }) {
      const query = userId
        ? `SELECT ${SECTION_COLUMNS} FROM section_metrics WHERE day = ? AND user_id = ?`
        : `SELECT ${SECTION_COLUMNS} FROM section_metrics WHERE day = ?`;
      const days: number[] = [];
      for (let d = dayOf(startTs); d <= dayOf(endTs); d++) days.push(d);
      const scan = () =>
        scanDayPartitions(
          cql,
          days,
          (day) => ({ query, params: userId ? [day, userId] : [day] }),
          (r) => {
            const startTsOfRow = Number(r['start_ts']);
            if (startTsOfRow >= startTs && startTsOfRow <= endTs) {
              visit({
                userId: String(r['user_id']),
                startTs: startTsOfRow,
                timeZone: String(r['time_zone']),
                mode: String(r['mode']),
                distance: Number(r['distance']),
                duration: Number(r['duration']),
              });
            }
          },
          { maxRows: maxSections, concurrency, what: 'sections' },
        );
      await (userId ? scan() : aggregate(scan));
    },

    async scanLabelTrips(localDates, visit, { maxSections, concurrency = 2 }) {
      const query = `SELECT ${LABEL_TRIP_COLUMNS} FROM label_trip_metrics WHERE local_date = ?`;
      await aggregate(() =>
        scanDayPartitions(
          cql,
          localDates,
          (localDate) => ({ query, params: [localDate] }),
          (r, localDate) =>
            visit({
              userId: String(r['user_id']),
              localDate,
              modeConfirm: String(r['mode_confirm']),
              purposeConfirm: String(r['purpose_confirm']),
              replacedModeConfirm: String(r['replaced_mode_confirm']),
              mode: String(r['mode']),
              distance: Number(r['distance']),
              duration: Number(r['duration']),
              responded: r['responded'] === true,
            }),
          { maxRows: maxSections, concurrency, what: 'trips' },
        ),
      );
    },
  };
}
