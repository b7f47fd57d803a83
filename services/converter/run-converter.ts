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
export async function runConverter(kafka: Kafka, deps: Omit<ConverterDeps, 'producer'>): Promise<RunningConverter> {
  const producer = createIdempotentProducer(kafka);
  await producer.connect();
  const consumer = kafka.consumer({
    groupId: groupName(deps.topicPrefix, 'converter'),
    allowAutoTopicCreation: false,
    // A batch of a few thousand entries takes well under a second; 30 s leaves room for a slow Cassandra.
    sessionTimeout: 30_000,
    maxBytesPerPartition: 4 * 1024 * 1024,
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
