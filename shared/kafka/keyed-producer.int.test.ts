import kafkajs from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failure } from '../../test/helpers/failure.js';
import { createTestEnv, waitFor, type TestEnv } from '../../test/helpers/test-env.js';
import { isOutage, recordRefusal } from '../errors/classify.js';
import { topicName } from '../events/index.js';
import { createKeyedProducer, type KeyedProducer } from './keyed-producer.js';

let env: TestEnv;
let producer: KeyedProducer;
beforeAll(async () => {
  env = await createTestEnv();
  producer = createKeyedProducer({ ...env.config.kafka, clientId: 'keyed-producer-test' });
});
afterAll(async () => {
  await producer.close();
  await env.dispose();
});

describe('The keyed producer', () => {
  it("When users' records go to a topic of 6 partitions (not a power of two), then each user's land on the partition kafkajs and Java clients pick, in order", async () => {
    const topic = `${env.config.kafka.topicPrefix}keyed-six`;
    const admin = env.kafka.admin();
    await admin.connect();
    try {
      await admin.createTopics({ topics: [{ topic, numPartitions: 6, replicationFactor: 1 }], waitForLeaders: true });
    } finally {
      await admin.disconnect();
    }
    const kafkajsPartition = kafkajs.Partitioners.DefaultPartitioner();
    const partitionMetadata = Array.from({ length: 6 }, (_, partitionId) => ({
      partitionId,
      leader: 0,
      partitionErrorCode: 0,
      replicas: [0],
      isr: [0],
      offlineReplicas: [],
    }));
    const users = Array.from({ length: 40 }, (_, i) => `user-${i}-${'x'.repeat(i % 7)}`);
    const partitions = new Set<number>();
    for (const user of users) {
      const records = [0, 1, 2].map((n) => ({ key: Buffer.from(user), value: Buffer.from(`${user}:${n}`) }));
      const written = await producer.send(topic, records);
      const expected = kafkajsPartition({ topic, partitionMetadata, message: { key: user, value: null } });
      expect(written.map((w) => w.partition)).toEqual([expected]);
      partitions.add(expected);
    }
    // The keys spread over more than the partitions a power-of-two hash would agree on by chance.
    expect(partitions.size).toBe(6);

    const consumer = env.kafka.consumer({ groupId: `${env.config.kafka.topicPrefix}keyed-six-check` });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const seen = new Map<string, string[]>();
    let count = 0;
    await new Promise<void>((done, fail) => {
      consumer
        .run({
          eachMessage: async ({ message }) => {
            const key = message.key!.toString();
            seen.set(key, [...(seen.get(key) ?? []), message.value!.toString()]);
            if (++count === users.length * 3) done();
          },
        })
        .catch(fail);
    });
    await consumer.disconnect();
    for (const user of users) expect(seen.get(user)).toEqual([0, 1, 2].map((n) => `${user}:${n}`));
  });

  it('When Kafka refuses a record as too large, then the error is a refusal of the record and no outage', async () => {
    const topic = topicName(env.config.kafka.topicPrefix, 'usercache');
    const err = await failure(
      producer.send(topic, [{ key: Buffer.from('big'), value: Buffer.alloc(5 * 1024 * 1024, 1) }]),
    );
    expect(err).toBeInstanceOf(Error);
    expect(recordRefusal(err)).toEqual({ kafkaError: 'MESSAGE_TOO_LARGE', reason: 'too_large' });
    expect(isOutage(err)).toBe(false);
    // The producer goes on: a record of normal size after the refusal is written.
    const written = await producer.send(topic, [{ key: Buffer.from('small'), value: Buffer.from('after') }]);
    expect(written).toHaveLength(1);
  });

  it('When one partition of a request is refused and another written, then the next send of as many records to the written partition is written too', async () => {
    // The loss kafkajs 2.2 suffers here: the written partition's sequence numbers taken back with the failed request,
    // and the next batch of as many records acknowledged by the broker as a duplicate, never written.
    const topic = `${env.config.kafka.topicPrefix}keyed-half-refused`;
    const admin = env.kafka.admin();
    await admin.connect();
    try {
      await admin.createTopics({
        topics: [{ topic, numPartitions: 2, configEntries: [{ name: 'max.message.bytes', value: '2000' }] }],
        waitForLeaders: true,
      });
    } finally {
      await admin.disconnect();
    }
    const partitionOf = (key: string) =>
      kafkajs.Partitioners.DefaultPartitioner()({
        topic,
        partitionMetadata: [0, 1].map((partitionId) => ({ partitionId, leader: 0 })) as never,
        message: { key, value: null },
      });
    const users = Array.from({ length: 20 }, (_, i) => `half-${i}`);
    const written = users.find((u) => partitionOf(u) === 0)!;
    const refused = users.find((u) => partitionOf(u) === 1)!;
    const batch = (name: string) =>
      Array.from({ length: 5 }, (_, i) => ({ key: Buffer.from(written), value: Buffer.from(`${name}${i}`) }));
    const half = producer.send(topic, [
      ...batch('written-'),
      { key: Buffer.from(refused), value: Buffer.alloc(10_000) },
    ]);
    await expect(half).rejects.toThrow();
    await producer.send(topic, batch('next-'));

    const consumer = env.kafka.consumer({ groupId: `${topic}-reader` });
    const values = new Set<string>();
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void values.add(String(message.value)) });
    try {
      await waitFor(
        async () => (batch('next-').every((m) => values.has(String(m.value))) ? true : undefined),
        30_000,
        'the next batch in the topic',
      );
    } finally {
      await consumer.disconnect();
    }
  });

  it('When a record has no value or carries headers, then a reader sees a tombstone (null value) and the headers as sent', async () => {
    const topic = topicName(env.config.kafka.topicPrefix, 'diary');
    const key = Buffer.from(`tombstone-${Date.now()}`);
    await producer.send(topic, [
      { key, value: Buffer.from('document'), headers: { 'itinera-replay': Buffer.from('1') } },
      { key, value: null },
    ]);

    const consumer = env.kafka.consumer({ groupId: `${topic}-tombstone-reader-${key.toString()}` });
    const seen: { value: string | null; replay: string | undefined }[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        if (message.key?.equals(key))
          seen.push({
            value: message.value?.toString() ?? null,
            replay: message.headers?.['itinera-replay']?.toString(),
          });
      },
    });
    try {
      await waitFor(async () => (seen.length === 2 ? true : undefined), 30_000, 'both records read back');
    } finally {
      await consumer.disconnect();
    }
    expect(seen).toEqual([
      { value: 'document', replay: '1' },
      { value: null, replay: undefined },
    ]);
  });

  it('When no broker answers, then the send fails, bounded, as an outage', async () => {
    const away = createKeyedProducer({
      brokers: ['127.0.0.1:1'],
      clientId: 'keyed-producer-away',
      connectTimeout: 200,
      retries: 2,
    });
    try {
      const err = await failure(away.send('anything', [{ key: Buffer.from('k'), value: Buffer.from('v') }]));
      expect(err).toBeInstanceOf(Error);
      expect(isOutage(err)).toBe(true);
    } finally {
      await away.close();
    }
  });
});
