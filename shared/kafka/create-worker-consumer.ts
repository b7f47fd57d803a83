import type { Consumer, Kafka } from 'kafkajs';

/**
 * A pipeline worker's consumer (converter, trip builder): a member of `groupId` that takes over a crashed member's
 * partitions within seconds. `onFatal` is called when kafkajs has stopped consuming for good.
 */
export function createWorkerConsumer(
  kafka: Kafka,
  groupId: string,
  onFatal?: (error: Error) => void,
  maxBytesPerPartition = 4 * 1024 * 1024,
): Consumer {
  const consumer = kafka.consumer({
    groupId,
    allowAutoTopicCreation: false,
    // A crashed worker's partitions wait this long before another worker takes them over, so it is short; a
    // batch (a few thousand entries of one partition) takes one to two seconds and heartbeats while it runs
    // (run-worker.ts).
    sessionTimeout: 10_000,
    // How long a rebalance waits for each member to rejoin, which a member does once its batch in hand is done. At
    // 10 s, batches slowed past it by an overloaded Cassandra (the cluster suite, after its faults) put the two
    // converters in a loop: each rejoin evicted the busy other, whose rejoin evicted the first, and the group made no
    // progress for minutes. Takeover after a crash is bounded by sessionTimeout, not by this.
    rebalanceTimeout: 60_000,
    heartbeatInterval: 1_000,
    maxBytesPerPartition,
  });
  // kafkajs restarts the consumer after retriable errors by itself; after any other it stops consuming for good
  // while the process lives on. Exiting (onFatal) lets the supervisor (npm start, systemd, Kubernetes) start a
  // fresh one; uncommitted work is redelivered into idempotent writes.
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (!payload.restart) onFatal?.(payload.error);
  });
  return consumer;
}
