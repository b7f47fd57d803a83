import type { EachBatchPayload } from 'kafkajs';
import type { Logger } from '../../shared/logger/index.js';
import type { AvroCodec } from '../../shared/schema-registry/index.js';
import { OBSERVED_KEYS } from './domain/observations.js';
import { rebuildUser, type RebuildDeps } from './rebuild-user.js';

/** The Avro value of the timeseries topic (schemas/avro/timeseries-entry.avsc). */
interface TimeseriesRecord {
  user_id: string;
  key: string;
  data_ts: number | null;
}

export interface TripBuilderDeps extends RebuildDeps {
  codec: AvroCodec;
  logger: Logger;
  onRebuilt?: (userId: string, trips: number) => void;
}

const OBSERVED: ReadonlySet<string> = new Set(Object.values(OBSERVED_KEYS));

/** Users of one batch rebuilt concurrently. */
const REBUILDS_AT_ONCE = 8;

/**
 * Handles one batch of converted entries of one partition: for each user in it, the earliest new observation
 * decides the window to rebuild (rebuild-user.ts), then the batch's offset is committed. Entries were written to
 * Cassandra before they were published, so the rebuild reads them (and everything before) from there. A crash
 * before the commit redelivers the batch into a rebuild from the same saved resume point: nothing lost or doubled.
 */
export function createTripBatchHandler(deps: TripBuilderDeps) {
  return async ({
    batch,
    resolveOffset,
    heartbeat,
    commitOffsetsIfNecessary,
    isRunning,
    isStale,
  }: EachBatchPayload) => {
    if (batch.messages.length === 0 || !isRunning() || isStale()) return;
    const earliest = new Map<string, number>();
    for (const message of batch.messages) {
      if (!message.value) continue;
      const record = await deps.codec.decode<TimeseriesRecord>(message.value);
      if (!OBSERVED.has(record.key) || record.data_ts === null) continue;
      earliest.set(record.user_id, Math.min(earliest.get(record.user_id) ?? Infinity, record.data_ts));
    }
    // Users are independent and each appears once here, so several rebuild at once: a rebuild mostly waits on
    // Cassandra, and a batch after an evening of syncs holds hundreds of users.
    const users = [...earliest];
    let next = 0;
    const rebuildNext = async () => {
      while (next < users.length) {
        const [userId, from] = users[next++]!;
        const started = performance.now();
        const result = await rebuildUser(deps, userId, from);
        deps.logger.debug('Rebuilt trips', {
          user: userId,
          trips: result.trips,
          days: result.days,
          ms: Math.round(performance.now() - started),
        });
        deps.onRebuilt?.(userId, result.trips);
        await heartbeat();
      }
    };
    await Promise.all(Array.from({ length: Math.min(REBUILDS_AT_ONCE, users.length) }, rebuildNext));
    resolveOffset(batch.messages[batch.messages.length - 1]!.offset);
    await commitOffsetsIfNecessary();
  };
}
