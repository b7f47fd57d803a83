import { createKeyedProducer } from '../../shared/kafka/index.js';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EachMessagePayload } from 'kafkajs';
import { consistencies } from '../../shared/cassandra/index.js';
import { groupName, topicName } from '../../shared/events/index.js';
import { valueSubject } from '../../shared/schema-registry/index.js';
import { cleanupAfterTest, createTestEnv, waitFor, type TestEnv } from '../helpers/test-env.js';

// These prove the three real servers and the operator paths the design rests on. They also decide the Kafka
// version: KafkaJS 2.2 must produce, consume in a group, reset offsets by timestamp and dead-letter against it.

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env.dispose();
});

async function consumeInto(group: string, topic: string, sink: EachMessagePayload[], fromBeginning = true) {
  const consumer = env.kafka.consumer({ groupId: group, maxWaitTimeInMs: 200 });
  cleanupAfterTest(() => consumer.disconnect());
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning });
  await consumer.run({
    eachMessage: async (payload) => {
      sink.push(payload);
    },
  });
  return consumer;
}

describe('the local stack', () => {
  it('When an Avro record is produced through the registry, then a consumer group reads it back decoded', async () => {
    const topic = topicName(env.config.kafka.topicPrefix, 'usercache');
    const record = {
      user_id: randomUUID(),
      key: 'background/location',
      type: 'sensor-data',
      write_ts: 1440688739.672,
      platform: 'android',
      received_ts: Date.now() / 1000,
      metadata_json: '{}',
      data_json: '{"ts":1440688739.672}',
    };
    const producer = createKeyedProducer({ ...env.config.kafka, clientId: 'smoke' });
    cleanupAfterTest(() => producer.close());
    await producer.send(topic, [
      { key: Buffer.from(record.user_id), value: await env.codec.encode(valueSubject(topic), record) },
    ]);

    const seen: EachMessagePayload[] = [];
    await consumeInto(`${env.config.kafka.topicPrefix}smoke-${randomUUID()}`, topic, seen);
    const message = await waitFor(async () => seen[0], 30_000, 'the Avro record');

    expect(message.message.key?.toString()).toBe(record.user_id);
    expect(await env.codec.decode(message.message.value as Buffer)).toEqual(record);
  });

  it('When a row is written at LOCAL_QUORUM, then it reads back at LOCAL_QUORUM', async () => {
    const user = randomUUID();
    await env.cassandra.execute(
      'INSERT INTO pipeline_state (user_id, stage, last_processed_ts) VALUES (?, ?, ?)',
      [user, 'smoke', 42.5],
      { prepare: true, consistency: consistencies.localQuorum },
    );
    const rs = await env.cassandra.execute(
      'SELECT last_processed_ts FROM pipeline_state WHERE user_id = ? AND stage = ?',
      [user, 'smoke'],
      { prepare: true, consistency: consistencies.localQuorum },
    );
    expect(rs.rows[0]?.['last_processed_ts']).toBe(42.5);
  });

  it('When a group is reset to a timestamp with the admin API, then the messages after it are consumed again', async () => {
    const topic = topicName(env.config.kafka.topicPrefix, 'timeseries');
    const group = groupName(`${env.config.kafka.topicPrefix}reset-${randomUUID()}.`, 'converter');
    const producer = env.kafka.producer();
    await producer.connect();
    cleanupAfterTest(() => producer.disconnect());
    const t0 = Date.now();
    const before = Array.from({ length: 3 }, (_, i) => ({
      key: 'u1',
      value: `old-${i}`,
      timestamp: String(t0 - 60_000 + i),
    }));
    const after = Array.from({ length: 2 }, (_, i) => ({ key: 'u1', value: `new-${i}`, timestamp: String(t0 + i) }));
    await producer.send({ topic, acks: -1, messages: [...before, ...after] });

    const firstPass: EachMessagePayload[] = [];
    const consumer = await consumeInto(group, topic, firstPass);
    await waitFor(async () => (firstPass.length === 5 ? true : undefined), 30_000, 'the first pass');
    await consumer.disconnect();

    const admin = env.kafka.admin();
    await admin.connect();
    cleanupAfterTest(() => admin.disconnect());
    const offsets = await admin.fetchTopicOffsetsByTimestamp(topic, t0);
    await admin.setOffsets({
      groupId: group,
      topic,
      partitions: offsets.map(({ partition, offset }) => ({ partition, offset })),
    });

    const secondPass: EachMessagePayload[] = [];
    await consumeInto(group, topic, secondPass, false);
    await waitFor(async () => (secondPass.length >= 2 ? true : undefined), 30_000, 'the replay');
    expect(secondPass.map((m) => m.message.value?.toString()).sort()).toEqual(['new-0', 'new-1']);
  });

  it('When a message is dead-lettered with its origin, then the dead-letter topic holds it with that origin', async () => {
    const source = topicName(env.config.kafka.topicPrefix, 'usercache');
    const topic = topicName(env.config.kafka.topicPrefix, 'errorTimeseries');
    const letter = {
      user_id: randomUUID(),
      key: 'background/location',
      type: 'sensor-data',
      write_ts: 1.5e9,
      reason: 'data.ts is missing',
      source_topic: source,
      source_partition: 3,
      source_offset: 17,
      failed_ts: 1.6e9,
      metadata_json: '{}',
      data_json: '{}',
    };
    const producer = createKeyedProducer({ ...env.config.kafka, clientId: 'smoke' });
    cleanupAfterTest(() => producer.close());
    await producer.send(topic, [
      { key: Buffer.from(letter.user_id), value: await env.codec.encode(valueSubject(topic), letter) },
    ]);

    const seen: EachMessagePayload[] = [];
    await consumeInto(`${env.config.kafka.topicPrefix}dlq-${randomUUID()}`, topic, seen);
    const message = await waitFor(async () => seen[0], 30_000, 'the dead letter');
    expect(await env.codec.decode(message.message.value as Buffer)).toEqual(letter);
  });
});
