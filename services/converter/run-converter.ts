import { groupName, topicName } from '../../shared/events/index.js';
import { runWorker, type KeyedProducer, type RunningWorker, type WorkerClients } from '../../shared/kafka/index.js';
import { createBatchHandler, type ConverterDeps } from './handler.js';

export type RunningConverter = RunningWorker;

export interface RunConverterDeps extends Omit<ConverterDeps, 'producer' | 'eraseDeleted'> {
  /** The erasure of a user deleted meanwhile, over the worker's producer (the diary topic's tombstones). */
  erasure?: (producer: KeyedProducer) => NonNullable<ConverterDeps['eraseDeleted']>;
  /** Called when the consumer has stopped for good; main.ts exits so the worker is restarted. */
  onFatal?: (error: Error) => void;
}

/**
 * One converter worker: a member of the converter consumer group on the usercache topic. Run n of them (in one
 * process or many) to convert n partitions at once; Kafka spreads the partitions among the members.
 */
export function runConverter(clients: WorkerClients, deps: RunConverterDeps): Promise<RunningConverter> {
  return runWorker({
    clients,
    groupId: groupName(deps.topicPrefix, 'converter'),
    topic: topicName(deps.topicPrefix, 'usercache'),
    logger: deps.logger,
    handler: (producer) =>
      createBatchHandler({ ...deps, producer, ...(deps.erasure ? { eraseDeleted: deps.erasure(producer) } : {}) }),
    // A batch's writes are bounded by bytes (shared/cassandra/plan-batches.ts), so eight partitions at once stay within memory.
    partitionsAtOnce: 8,
    onFatal: deps.onFatal,
    onStopped: () => deps.intakeLog.close(),
  });
}
