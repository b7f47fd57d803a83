import pLimit from 'p-limit';
import { isOutage } from '../../shared/errors/classify.js';
import type { WorkerBatch } from '../../shared/kafka/index.js';
import { forEachBounded } from '../../shared/runtime/for-each-bounded.js';
import type { Logger } from '../../shared/logger/index.js';
import type { AvroCodec } from '../../shared/schema-registry/index.js';
import { startTsOf, type TimeseriesRecord, TRIP_BUILDER_ERROR_KEY } from '../../shared/events/index.js';
import type { DeletedUsersTable } from '../../shared/tables/index.js';
import { storeDeadLetter, type ErrorTimeseries } from '../../shared/timeseries/index.js';
import { OBSERVED_KEYS } from './domain/observations.js';
import { USER_INPUT_KEYS } from './domain/labels/index.js';
import { rebuildUser, type RebuildDeps } from './rebuild-user.js';
import { relabelUser } from './relabel-user.js';

export interface TripBuilderDeps extends RebuildDeps {
  codec: AvroCodec;
  logger: Logger;
  /** Where a user whose rebuild fails for good is recorded (key TRIP_BUILDER_ERROR_KEY), for an operator. */
  errors: ErrorTimeseries;
  onRebuilt?: (userId: string, trips: number) => void;
  /** The rebuild rules; a new version of them is how a rebuild bug gets fixed. @defaultValue rebuildUser */
  rebuild?: typeof rebuildUser;
  /** Deleted accounts, whose entries still in the topic are skipped (no trips are built again for them). */
  deletedUsers?: Pick<DeletedUsersTable, 'isDeleted' | 'isDeletedNow'>;
  /**
   * Erases a user deleted while their rebuild ran (its trips, rows and diary records): the deletion writes its mark
   * before it erases and the rebuild reads the mark after it wrote, so one erasure comes after the rebuild's writes.
   */
  eraseDeleted?: (userId: string, hints: { localDates: readonly string[] }) => Promise<unknown>;
}

const OBSERVED: ReadonlySet<string> = new Set(Object.values(OBSERVED_KEYS));
const USER_INPUTS: ReadonlySet<string> = new Set(USER_INPUT_KEYS);

/** Characters of a failed rebuild's reason written to the log. */
const LOGGED_REASON_CHARS = 2000;
/** Characters of a failed rebuild's stack kept in its failure row: an error's stack repeats its message, any size. */
const STORED_STACK_CHARS = 16_000;

/** Users of one batch rebuilt concurrently. */
const REBUILDS_AT_ONCE = 8;
/**
 * Users rebuilt concurrently in the whole process, over all the batches handled at once: what bounds the worker's
 * memory (a rebuild holds a window of the user's observations).
 */
const REBUILDS_PER_PROCESS = 12;

/**
 * Handles one batch of converted entries of one partition: for each user in it, the earliest new observation
 * decides the window to rebuild (rebuild-user.ts); then runWorker commits the batch's offset. Entries were written
 * to Cassandra before they were published, so the rebuild reads them (and everything before) from there. A crash
 * before the commit redelivers the batch into a rebuild from the same saved resume point: nothing lost or doubled.
 */
export function createTripBatchHandler(deps: TripBuilderDeps) {
  const rebuildSlots = pLimit(REBUILDS_PER_PROCESS);
  return async ({ batch, heartbeat }: WorkerBatch) => {
    const earliest = new Map<string, number>();
    /** Labels, surveys and notes per user: matched by re-rendering their days, trips untouched (path B). */
    const inputStarts = new Map<string, number[]>();
    const firstOffset = new Map<string, number>();
    for (const message of batch.messages) {
      if (!message.value) continue;
      let record: TimeseriesRecord;
      try {
        record = await deps.codec.decode<TimeseriesRecord>(message.value);
      } catch (err) {
        if (isOutage(err)) throw err;
        // Not a converted entry (the converter writes every one of them): nothing to rebuild from it.
        deps.logger.error('Undecodable timeseries record skipped', {
          partition: batch.partition,
          offset: message.offset,
          error: err instanceof Error ? err.message : String(err),
        });
        continue;
      }
      if (USER_INPUTS.has(record.key)) {
        const start = startTsOf(record);
        if (start === undefined) continue;
        inputStarts.set(record.user_id, [...(inputStarts.get(record.user_id) ?? []), start]);
      } else if (OBSERVED.has(record.key) && record.data_ts !== null) {
        earliest.set(record.user_id, Math.min(earliest.get(record.user_id) ?? Infinity, record.data_ts));
      } else continue;
      if (!firstOffset.has(record.user_id)) firstOffset.set(record.user_id, Number(message.offset));
    }
    const rebuild = deps.rebuild ?? rebuildUser;
    // Users are independent and each appears once here, so several rebuild at once: a rebuild mostly waits on
    // Cassandra, and a batch after an evening of syncs holds hundreds of users.
    const users = [...new Set([...earliest.keys(), ...inputStarts.keys()])];
    // After an outage no further user starts, and the batch fails only once those rebuilding have finished, so
    // kafkajs' retry of the batch never rebuilds a user twice at once.
    await forEachBounded(users, REBUILDS_AT_ONCE, async (userId) => {
      if (await deps.deletedUsers?.isDeleted(userId)) return;
      // Where the failure row is filed when this user's work fails: the first new observation, else input.
      const from = earliest.get(userId) ?? Math.min(...(inputStarts.get(userId) ?? [0]));
      const started = performance.now();
      let result: Awaited<ReturnType<typeof rebuildUser>> = { trips: 0, days: [] };
      /** The trip-local dates this user's work wrote rows of. */
      const written = new Set<string>();
      try {
        await rebuildSlots(async () => {
          if (earliest.has(userId)) result = await rebuild(deps, userId, from);
          for (const day of result.days) written.add(day);
          // After the rebuild, so labels of trips it just made are matched too; days it rendered are cheap to redo.
          const inputs = inputStarts.get(userId);
          if (inputs) for (const day of await relabelUser(deps, userId, inputs)) written.add(day);
        });
      } catch (err) {
        // An outage is retried with the whole batch. Anything else is this user's data or a bug the data
        // reveals: retrying cannot help and would stall every other user of the partition, so it is recorded
        // where an operator sees it, and the batch goes on. The next observation of the user, or
        // `itinera reset-pipeline -u`, rebuilds from the same saved resume point once the cause is fixed.
        if (isOutage(err)) throw err;
        await recordFailedRebuild(deps, {
          userId,
          from,
          error: err,
          topic: batch.topic,
          partition: batch.partition,
          offset: firstOffset.get(userId) ?? -1,
        });
        await heartbeat();
        return;
      }
      if (deps.eraseDeleted && (await deps.deletedUsers?.isDeletedNow(userId))) {
        deps.logger.info('Erased what a rebuild wrote for a user deleted meanwhile', { user: userId });
        await deps.eraseDeleted(userId, { localDates: [...written] });
        return;
      }
      deps.logger.debug('Rebuilt trips', {
        user: userId,
        trips: result.trips,
        days: result.days,
        ms: Math.round(performance.now() - started),
      });
      deps.onRebuilt?.(userId, result.trips);
      await heartbeat();
    });
  };
}

/**
 * One error-timeseries row per user and failed window start (a retry of the same batch overwrites it). Written with
 * storeDeadLetter, like the converter's dead letters: if Cassandra refuses the row itself (an error message too
 * large for a request), a reduced row is stored instead of failing the batch, which kafkajs would retry for ever.
 */
async function recordFailedRebuild(
  deps: TripBuilderDeps,
  failure: { userId: string; from: number; error: unknown; topic: string; partition: number; offset: number },
): Promise<void> {
  const { userId, from, error } = failure;
  const reason = `trip rebuild failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
  deps.logger.error('Trip rebuild failed; user skipped, partition goes on', {
    user: userId,
    fromTs: from,
    partition: failure.partition,
    offset: failure.offset,
    // The whole reason is in the error row; an error message can embed data, so the log line keeps its start.
    reason: reason.length > LOGGED_REASON_CHARS ? `${reason.slice(0, LOGGED_REASON_CHARS)}…` : reason,
  });
  await storeDeadLetter(deps, {
    user_id: userId,
    key: TRIP_BUILDER_ERROR_KEY,
    type: 'message',
    write_ts: from,
    reason,
    source_topic: failure.topic,
    source_partition: failure.partition,
    source_offset: failure.offset,
    failed_ts: deps.now(),
    metadata_json: JSON.stringify({ key: TRIP_BUILDER_ERROR_KEY, type: 'message', write_ts: from }),
    data_json: JSON.stringify({
      earliest_new_data_ts: from,
      stack: error instanceof Error ? error.stack?.slice(0, STORED_STACK_CHARS) : undefined,
    }),
  });
}
