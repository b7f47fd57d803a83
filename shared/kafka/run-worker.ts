import type { Batch, EachBatchPayload, Kafka } from 'kafkajs';
import pRetry from 'p-retry';
import type { Logger } from '../logger/index.js';
import { createWorkerConsumer } from './create-worker-consumer.js';
import type { KeyedProducer } from './keyed-producer.js';

/** What a worker's handler is given of a batch: its messages (one partition) and the heartbeat for long work. */
export type WorkerBatch = Pick<EachBatchPayload, 'batch' | 'heartbeat'>;

/** What a handler may return: work to do once the batch's offset is committed (a log line saying what moved). */
export interface BatchDone {
  afterCommit(): void;
}

/**
 * A worker's work on one batch of one partition. Resolving means the batch is done: its last offset is then
 * resolved and committed. Throwing (an outage) commits nothing: the batch is tried again, in place and then by
 * kafkajs (workerEachBatch), so every effect of a handler must be idempotent.
 */
export type BatchHandler = (batch: WorkerBatch) => Promise<BatchDone | void>;

/**
 * The Kafka clients a worker runs on: kafkajs for its consumer group, the keyed producer (shared/kafka/keyed-producer.ts)
 * for what it publishes. The worker owns the producer: stop() closes it.
 */
export interface WorkerClients {
  kafka: Kafka;
  producer: KeyedProducer;
}

export interface WorkerOptions {
  clients: WorkerClients;
  /** The consumer group (groupName(prefix, ...)), and the topic it consumes from the beginning. */
  groupId: string;
  topic: string;
  logger: Logger;
  /** The batch handler, given the worker's producer (idempotent, acks=all; it connects on its first send). */
  handler(producer: KeyedProducer): BatchHandler;
  /** Called when the consumer has stopped for good; main.ts exits so the supervisor starts a fresh worker. */
  onFatal?: (error: Error) => void;
  /** Called last by stop(), after the consumer and the producer are disconnected (closes the pipeline log). */
  onStopped?: () => void;
  /**
   * Batches (each of one partition) handled at once. Batches of different partitions are independent, and a
   * worker's batch mostly waits on Cassandra and Kafka, so a small entry (a label) need not wait behind a whole
   * round of other partitions' batches. @defaultValue 2
   */
  partitionsAtOnce?: number;
  /**
   * Bytes fetched per partition at once: what bounds a batch, so sized to hold a few thousand records of the topic.
   * @defaultValue 4 MiB
   */
  maxBytesPerPartition?: number;
}

export interface RunningWorker {
  /** Leaves the group (its partitions are handed over at once) and closes the producer. */
  stop(): Promise<void>;
}

/** How often a batch in hand heartbeats: a few times within the session timeout (create-worker-consumer.ts). */
const BATCH_HEARTBEAT_MS = 2_000;

/**
 * How a failed batch is tried again in place before kafkajs is given the error: 4 more tries, 0.5, 1, 2 and 4 s
 * apart (7.5 s in all), which rides out a Cassandra node's restart or a leader election. Past that the outage is
 * longer, and kafkajs' own restart (the consumer leaves and rejoins, with its own backoff) takes over.
 */
export interface BatchRetry {
  retries: number;
  firstDelayMs: number;
  maxDelayMs: number;
}
export const BATCH_RETRY: BatchRetry = { retries: 4, firstDelayMs: 500, maxDelayMs: 4_000 };

export interface EachBatchOptions {
  /** @defaultValue BATCH_HEARTBEAT_MS */
  heartbeatEveryMs?: number;
  /** @defaultValue BATCH_RETRY */
  retry?: BatchRetry;
  /** Told of each failure that is tried again in place (the worker logs it). */
  onRetry?: (failure: { topic: string; partition: number; attempt: number; error: Error }) => void;
}

/**
 * The eachBatch every worker runs, around its handler: a batch that is empty, or that arrives while the consumer
 * stops or after a rebalance took its partition away, is left alone; otherwise the handler runs, and only once it
 * has resolved is the batch's last offset resolved and committed. A crash at any instant before the commit
 * redelivers the batch. A handler that throws is tried again in place a few times (`retry`) while the partition is
 * still this worker's: thrown straight to kafkajs, every short Cassandra outage restarted the consumer, which
 * leaves and rejoins the group, so every member of the group stopped for a rebalance. Exported for tests that
 * drive a handler with a plain payload.
 */
export function workerEachBatch(
  handle: BatchHandler,
  { heartbeatEveryMs = BATCH_HEARTBEAT_MS, retry = BATCH_RETRY, onRetry }: EachBatchOptions = {},
): (payload: EachBatchPayload) => Promise<void> {
  return async ({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }) => {
    if (batch.messages.length === 0 || !isRunning() || isStale()) return;
    // kafkajs heartbeats only between batches or when asked. A batch slowed past the 10 s session timeout (Cassandra
    // overloaded after a node came back) got its worker evicted, its commit refused and the batch done again, for
    // ever: the cluster suite's converters made no progress for minutes. So the batch heartbeats while it runs, and
    // while it waits to be tried again. A failed heartbeat (mostly a rebalance under way) is left to kafkajs, which
    // rejoins once the batch is done, within the 60 s rebalance timeout; the batch is then not tried again in place,
    // since every retry would only keep the whole group waiting for this member (the cluster suite's converters tried
    // "the group is rebalancing" four times over before this).
    let heartbeatFailed = false;
    const beat = async () => {
      try {
        await heartbeat();
      } catch (err) {
        heartbeatFailed = true;
        throw err;
      }
    };
    const keepAlive = setInterval(() => void beat().catch(() => undefined), heartbeatEveryMs);
    let done: BatchDone | void;
    try {
      done = await pRetry(() => handle({ batch, heartbeat: beat }), {
        retries: retry.retries,
        minTimeout: retry.firstDelayMs,
        maxTimeout: retry.maxDelayMs,
        factor: 2,
        randomize: false,
        // Once the consumer stops, the partition has moved on or the group is rebalancing, the batch is kafkajs' again.
        shouldRetry: ({ error, attemptNumber }) => {
          if (heartbeatFailed || !isRunning() || isStale()) return false;
          onRetry?.({ topic: batch.topic, partition: batch.partition, attempt: attemptNumber, error });
          return true;
        },
      });
    } finally {
      clearInterval(keepAlive);
    }
    resolveOffset(lastOffset(batch));
    await commitOffsetsIfNecessary();
    done?.afterCommit();
  };
}

const lastOffset = (batch: Batch) => batch.messages[batch.messages.length - 1]!.offset;

/**
 * One pipeline worker (converter, trip builder): a member of `groupId` on `topic`, with an idempotent producer for
 * what it publishes. Run n of them (in one process or many) to work n partitions at once; Kafka spreads the
 * partitions among the members. Offsets are committed only after a batch's handler resolves (workerEachBatch),
 * `partitionsAtOnce` partitions of a worker at once.
 */
export async function runWorker(options: WorkerOptions): Promise<RunningWorker> {
  const { clients, groupId, topic, logger, onFatal, onStopped, partitionsAtOnce = 2 } = options;
  const { kafka, producer } = clients;
  const consumer = createWorkerConsumer(
    kafka,
    groupId,
    (error) => {
      logger.error('Consumer stopped for good', { group: groupId, error: error.message });
      onFatal?.(error);
    },
    options.maxBytesPerPartition,
  );
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    autoCommit: true,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: partitionsAtOnce,
    eachBatch: workerEachBatch(options.handler(producer), {
      onRetry: ({ topic: from, partition, attempt, error }) =>
        logger.warn('Batch failed, trying it again', {
          group: groupId,
          topic: from,
          partition,
          attempt,
          error: error.message,
        }),
    }),
  });
  return {
    async stop() {
      await consumer.disconnect();
      await producer.close();
      onStopped?.();
    },
  };
}
