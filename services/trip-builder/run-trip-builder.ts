import type { Consumer, Kafka } from 'kafkajs';
import { groupName, topicName } from '../../shared/events/index.js';
import { createIdempotentProducer } from '../../shared/kafka/index.js';
import { valueSubject } from '../../shared/schema-registry/index.js';
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
  const consumer = kafka.consumer({
    groupId: groupName(deps.topicPrefix, 'tripBuilder'),
    allowAutoTopicCreation: false,
    sessionTimeout: 10_000,
    rebalanceTimeout: 10_000,
    heartbeatInterval: 1_000,
    maxBytesPerPartition: 4 * 1024 * 1024,
  });
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (!payload.restart) deps.onFatal?.(payload.error);
  });
  await consumer.connect();
  await consumer.subscribe({ topic: topicName(deps.topicPrefix, 'timeseries'), fromBeginning: true });
  await consumer.run({
    autoCommit: true,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: 2,
    eachBatch: createTripBatchHandler({
      ...deps,
      async publishDocument(userId, key, data, writeTs) {
        const value = await deps.codec.encode(valueSubject(diaryTopic), {
          user_id: userId,
          key,
          write_ts: writeTs,
          data_json: data === null ? null : JSON.stringify(data),
        });
        await producer.send({ topic: diaryTopic, acks: -1, messages: [{ key: `${userId}|${key}`, value }] });
      },
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
