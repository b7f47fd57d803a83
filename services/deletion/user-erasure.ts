import pLimit from 'p-limit';
import type { Cql, Statement } from '../../shared/cassandra/index.js';
import { diaryDocumentKey, topicName } from '../../shared/events/index.js';
import type { KeyedProducer } from '../../shared/kafka/index.js';
import {
  createTripBuilderStateTable,
  createTripsTable,
  openTables,
  type Tables,
  removeCustomLabels,
  removeProfile,
} from '../../shared/tables/index.js';
import { createErrorTimeseries, createTimeseriesEraser, dayOf } from '../../shared/timeseries/index.js';

/** What an erasure removed, in counts (no data). */
export interface ErasureCounts {
  /** Timeseries partitions (one key, one day, one ordering). */
  timeseriesPartitions: number;
  /** UTC days whose section rows and trip-local dates whose trip rows were cleared. */
  metricDays: number;
  /** Server-to-phone documents removed, each with a tombstone on the diary topic. */
  documents: number;
}

/**
 * Removes every row a user has, in every table, and the user's records on the compacted topic. `localDates`: trip-
 * local dates the caller knows it wrote rows of (a rebuild that finished after the account's first erasure, whose
 * rows no index it reads names any more).
 */
export type UserErasure = (userId: string, hints?: { localDates?: readonly string[] }) => Promise<ErasureCounts>;

/** Deletes run at once: a user with years of data has thousands of partitions. */
const DELETES_AT_ONCE = 16;

/** The shared tables keyed by user first: one partition delete each removes everything of the user. */
const WHOLE_USER_PARTITIONS = [
  'compositeEntries',
  'diaryDays',
  'labelCounts',
  'pipelineState',
  'activity',
  'participantDays',
  'usercacheDocuments',
] as const satisfies ReadonlyArray<keyof Tables>;

const isoDate = (day: number) => new Date(day * 86_400_000).toISOString().slice(0, 10);

/**
 * Account deletion across the tables' owner modules. The days a user can have rows on in the tables partitioned
 * by day (section metrics by UTC day, label metrics by trip-local date) are read first, from the timeseries' day
 * index and the trip index, before those are removed: every section lies on a day with locations, and a trip-local
 * date is at most a day off the UTC days of its data.
 */
export function createUserErasure(deps: { cql: Cql; producer: KeyedProducer; diaryTopic: string }): UserErasure {
  const { cql } = deps;
  const timeseries = createTimeseriesEraser(cql);
  const trips = createTripsTable(cql);
  const tripBuilderState = createTripBuilderStateTable(cql);
  const tables = openTables(cql);
  const limit = pLimit(DELETES_AT_ONCE);
  const run = (statements: Statement[]) =>
    Promise.all(statements.map((s) => limit(() => cql.write(s.query, s.params))));

  return async (userId, hints = {}) => {
    const partitions = [];
    for await (const p of timeseries.partitions(userId)) partitions.push(p);
    const tripList = [];
    for await (const t of trips.indexOfUser(userId)) tripList.push(t);
    const utcDays = new Set(partitions.map((p) => p.day));
    for (const t of tripList) for (let d = dayOf(t.startTs); d <= dayOf(t.endTs); d += 1) utcDays.add(d);
    const localDates = new Set([
      ...tripList.map((t) => t.localDate),
      ...(await tables.labelCounts.dates(userId)),
      ...(hints.localDates ?? []),
    ]);
    for (const date of hints.localDates ?? []) {
      const day = Math.floor(Date.parse(`${date}T00:00:00Z`) / 86_400_000);
      if (Number.isFinite(day)) for (const near of [day - 1, day, day + 1]) utcDays.add(near);
    }
    for (const d of utcDays) for (const near of [d - 1, d, d + 1]) localDates.add(isoDate(near));
    const documentKeys = await tables.usercacheDocuments.keys(userId);

    // Derived data first, raw data last: a deletion interrupted halfway can be run again, and finds its days.
    await run([
      ...[...utcDays].map((d) => tables.sectionMetrics.removeUserDay(userId, d)),
      ...[...localDates].map((d) => tables.labelMetrics.removeUserDate(userId, d)),
    ]);
    await trips.removeUser(userId, localDates);
    await tripBuilderState.removeUser(userId);
    await Promise.all([
      ...WHOLE_USER_PARTITIONS.map((name) => tables[name].removeUser(userId)),
      createErrorTimeseries(cql).removeUser(userId),
      removeProfile(cql, userId),
      removeCustomLabels(cql, userId),
    ]);
    if (documentKeys.length > 0)
      await deps.producer.send(
        deps.diaryTopic,
        // Tombstones: compaction then drops every earlier record of these keys.
        documentKeys.map((key) => ({ key: Buffer.from(diaryDocumentKey(userId, key)), value: null })),
      );
    await run(partitions.flatMap((p) => timeseries.removePartition(userId, p)));
    return {
      timeseriesPartitions: partitions.length,
      metricDays: utcDays.size + localDates.size,
      documents: documentKeys.length,
    };
  };
}

/**
 * A worker's way to erase a user deleted while it worked (`erasure` in its stores), where it knows the topics' prefix:
 * the erasure tombstones the user's diary documents on the diary topic.
 */
export function erasureOnTopics(
  cql: Cql,
  topicPrefix: string | undefined,
): { erasure?: (producer: KeyedProducer) => UserErasure } {
  if (topicPrefix === undefined) return {};
  return { erasure: (producer) => createUserErasure({ cql, producer, diaryTopic: topicName(topicPrefix, 'diary') }) };
}
