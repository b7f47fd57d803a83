import type { Consumer, Kafka } from 'kafkajs';
import { groupName, topicName } from '../../shared/events/index.js';
import { createIdempotentProducer, createWorkerConsumer } from '../../shared/kafka/index.js';
import { createDiaryPublisher } from './diary-publisher.js';
import { createTripBatchHandler, type TripBuilderDeps } from './handler.js';

export interface RunningTripBuilder {
  consumer: Consumer;
  stop(): Promise<void>;
}

export interface RunTripBuilderDeps extends Omit<TripBuilderDeps, 'publishDocument'> {
  topicPrefix: string;
  onFatal?: (error: Error) => void;
}

/**
 * One trip-builder worker: a member of the trip-builder group on the timeseries topic (keyed by user, so one
 * worker owns a user at a time and per-user state needs no locks). Documents it writes also go to the compacted
 * diary topic, keyed by user and document key.
 */
export async function runTripBuilder(kafka: Kafka, deps: RunTripBuilderDeps): Promise<RunningTripBuilder> {
  const producer = createIdempotentProducer(kafka);
  await producer.connect();
  const diaryTopic = topicName(deps.topicPrefix, 'diary');
  const consumer = createWorkerConsumer(kafka, groupName(deps.topicPrefix, 'tripBuilder'), deps.onFatal);
  await consumer.connect();
  await consumer.subscribe({ topic: topicName(deps.topicPrefix, 'timeseries'), fromBeginning: true });
  await consumer.run({
    autoCommit: true,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: 2,
    eachBatch: createTripBatchHandler({
      ...deps,
      publishDocument: createDiaryPublisher({ producer, codec: deps.codec, topic: diaryTopic }),
    }),
  });
  return {
    consumer,
    async stop() {
      await consumer.disconnect();
      await producer.disconnect();
      deps.pipelineLog.close();
    },
  };
}
