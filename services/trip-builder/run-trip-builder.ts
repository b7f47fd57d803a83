import { groupName, topicName } from '../../shared/events/index.js';
import { runWorker, type KeyedProducer, type RunningWorker, type WorkerClients } from '../../shared/kafka/index.js';
import { createDiaryPublisher } from './diary-publisher.js';
import { createTripBatchHandler, type TripBuilderDeps } from './handler.js';

export type RunningTripBuilder = RunningWorker;

export interface RunTripBuilderDeps extends Omit<TripBuilderDeps, 'publishDocument' | 'eraseDeleted'> {
  /** The erasure of a user deleted meanwhile, over the worker's producer (the diary topic's tombstones). */
  erasure?: (producer: KeyedProducer) => NonNullable<TripBuilderDeps['eraseDeleted']>;
  topicPrefix: string;
  /** Called when the consumer has stopped for good; main.ts exits so the worker is restarted. */
  onFatal?: (error: Error) => void;
}

/**
 * One trip-builder worker: a member of the trip-builder group on the timeseries topic (keyed by user, so one
 * worker owns a user at a time and per-user state needs no locks). Documents it writes also go to the compacted
 * diary topic, keyed by user and document key.
 */
export function runTripBuilder(clients: WorkerClients, deps: RunTripBuilderDeps): Promise<RunningTripBuilder> {
  const diaryTopic = topicName(deps.topicPrefix, 'diary');
  return runWorker({
    clients,
    groupId: groupName(deps.topicPrefix, 'tripBuilder'),
    topic: topicName(deps.topicPrefix, 'timeseries'),
    logger: deps.logger,
    handler: (producer) =>
      createTripBatchHandler({
        ...deps,
        publishDocument: createDiaryPublisher({ producer, codec: deps.codec, topic: diaryTopic }),
        ...(deps.erasure ? { eraseDeleted: deps.erasure(producer) } : {}),
      }),
    // Rebuilds are bounded process-wide (handler.ts), so more partitions at once only lets a label's batch run
    // beside a long rebuild instead of behind it. kafkajs fetches again only once every batch of a fetch is done:
    // with all of a worker's partitions at once (16 by default), a label waits for one round of batches, not two.
    partitionsAtOnce: 16,
    // Notices are ~100 bytes: 512 KiB is ~5,000 of them, the count a 4 MiB batch of whole entries held before, so a
    // batch after a backlog still ends (and lets a rebalance in) within seconds. A larger record still comes alone.
    maxBytesPerPartition: 512 * 1024,
    onFatal: deps.onFatal,
    onStopped: () => deps.pipelineLog.close(),
  });
}
