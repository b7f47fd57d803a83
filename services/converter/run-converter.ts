import { createIdempotentProducer, createWorkerConsumer } from '../../shared/kafka/index.js';
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
  const consumer = createWorkerConsumer(kafka, groupName(deps.topicPrefix, 'converter'), deps.onFatal);
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
