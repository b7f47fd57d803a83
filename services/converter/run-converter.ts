import { createIdempotentProducer } from '../../shared/kafka/index.js';
import type { Consumer, Kafka } from 'kafkajs';
import { groupName, topicName } from '../../shared/events/index.js';
import { createBatchHandler, type ConverterDeps } from './handler.js';

export interface RunningConverter {
  consumer: Consumer;
  stop(): Promise<void>;
}

/**
 * One converter worker: a member of the converter consumer group on the usercache topic. Run n of them (in one
 * process or many) to convert n partitions at once; Kafka spreads the partitions among the members.
 */
export interface RunConverterDeps extends Omit<ConverterDeps, 'producer'> {
  /** Called when the consumer has stopped for good; main.ts exits so the worker is restarted. */
  onFatal?: (error: Error) => void;
}

export async function runConverter(kafka: Kafka, deps: RunConverterDeps): Promise<RunningConverter> {
  const producer = createIdempotentProducer(kafka);
  await producer.connect();
  const consumer = kafka.consumer({
    groupId: groupName(deps.topicPrefix, 'converter'),
    allowAutoTopicCreation: false,
    // A crashed worker's partitions wait this long before another worker takes them over, so it is short; a
    // batch (at most 4 MB of one partition, a few thousand entries) takes one to two seconds, heartbeats between.
    sessionTimeout: 10_000,
    rebalanceTimeout: 10_000,
    heartbeatInterval: 1_000,
    maxBytesPerPartition: 4 * 1024 * 1024,
  });
  // kafkajs restarts the consumer after retriable errors by itself; after any other it stops consuming for good
  // while the process lives on. Exiting lets the supervisor (npm start, systemd, Kubernetes) start a fresh one;
  // uncommitted work is redelivered into idempotent writes.
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (!payload.restart) deps.onFatal?.(payload.error);
  });
  await consumer.connect();
  await consumer.subscribe({ topic: topicName(deps.topicPrefix, 'usercache'), fromBeginning: true });
  await consumer.run({
    autoCommit: true,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: 2,
    eachBatch: createBatchHandler({ ...deps, producer }),
  });
  return {
    consumer,
    async stop() {
      await consumer.disconnect();
      await producer.disconnect();
      deps.intakeLog.close();
    },
  };
}
