import { randomUUID } from 'node:crypto';
import { topicName, type TopicId } from '../../shared/events/index.js';
import type { TestEnv } from './test-env.js';

/** The total number of records in a topic (sum of high-water marks): what "nothing was published" checks. */
export async function topicSize(env: TestEnv, id: TopicId): Promise<number> {
  const admin = env.kafka.admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topicName(env.config.kafka.topicPrefix, id));
    return offsets.reduce((sum, p) => sum + Number(p.high) - Number(p.low), 0);
  } finally {
    await admin.disconnect();
  }
}

/** Reads the whole topic from the beginning with a fresh group, decoding values through the registry. */
export async function readTopic<T>(
  env: TestEnv,
  id: TopicId,
  expected: number,
  timeoutMs = 30_000,
): Promise<{ key: string; value: T }[]> {
  const topic = topicName(env.config.kafka.topicPrefix, id);
  const consumer = env.kafka.consumer({
    groupId: `${env.config.kafka.topicPrefix}reader-${randomUUID()}`,
    maxWaitTimeInMs: 100,
  });
  const seen: { key: string; value: T }[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    await consumer.run({
      eachMessage: async ({ message }) => {
        seen.push({ key: message.key?.toString() ?? '', value: await env.codec.decode<T>(message.value as Buffer) });
        if (seen.length >= expected) done();
      },
    });
    if (expected > 0) await Promise.race([finished, new Promise((r) => setTimeout(r, timeoutMs))]);
    return seen;
  } finally {
    await consumer.disconnect();
  }
}

/** Reads the whole topic from the beginning with a fresh group, values undecoded (a tombstone's is null). */
export async function readTopicRaw(
  env: TestEnv,
  id: TopicId,
  expected: number,
  timeoutMs = 30_000,
): Promise<{ key: string; value: Buffer | null }[]> {
  const consumer = env.kafka.consumer({
    groupId: `${env.config.kafka.topicPrefix}reader-${randomUUID()}`,
    maxWaitTimeInMs: 100,
  });
  const seen: { key: string; value: Buffer | null }[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: topicName(env.config.kafka.topicPrefix, id), fromBeginning: true });
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    await consumer.run({
      eachMessage: async ({ message }) => {
        seen.push({ key: message.key?.toString() ?? '', value: message.value });
        if (seen.length >= expected) done();
      },
    });
    if (expected > 0) await Promise.race([finished, new Promise((r) => setTimeout(r, timeoutMs))]);
    return seen;
  } finally {
    await consumer.disconnect();
  }
}
