/**
 * The idempotent producer against the real broker when a request was written but failed anyway: its answer lost
 * (the broker killed between replicating and answering, as the cluster suite does), or one of its partitions
 * refused while another was written. A later send to the same partition must not be acknowledged without being
 * written. The lost answer is injected in the client's own socket: the answer to one chosen produce request is
 * dropped and the connection closed, the broker untouched.
 */
import { connect, type Socket } from 'node:net';
import { Kafka, logLevel, type Admin, type ISocketFactory } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, waitFor, type TestEnv } from '../../test/helpers/test-env.js';
import { createSafeProducer } from './create-kafka.js';

/** Kafka's Produce request: its api key, at byte 4 of a request, after the size. */
const PRODUCE_API_KEY = 0;

/** Sockets whose next produce request, once armed, is sent but its answer dropped and the connection closed. */
function answerDroppingSockets(): { factory: ISocketFactory; armNextProduce(): void; dropped(): number } {
  let armed = false;
  let dropAnswerTo: number | undefined;
  let dropped = 0;
  const factory: ISocketFactory = ({ host, port, onConnect }) => {
    const socket: Socket = connect({ host, port }, onConnect);
    const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
    socket.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (armed && Buffer.isBuffer(chunk) && chunk.length >= 12 && chunk.readInt16BE(4) === PRODUCE_API_KEY) {
        armed = false;
        dropAnswerTo = chunk.readInt32BE(8); // the request's correlation id
      }
      return write(chunk, ...rest);
    }) as Socket['write'];
    const emit = socket.emit.bind(socket) as (event: string | symbol, ...args: unknown[]) => boolean;
    socket.emit = ((event: string | symbol, ...args: unknown[]) => {
      const data = args[0];
      // With one request in flight per connection, the answer awaited starts the next chunk that arrives.
      if (event === 'data' && dropAnswerTo !== undefined && Buffer.isBuffer(data) && data.length >= 8) {
        if (data.readInt32BE(4) === dropAnswerTo) {
          dropAnswerTo = undefined;
          dropped += 1;
          socket.destroy(new Error('answer dropped by the test'));
          return true;
        }
      }
      return emit(event, ...args);
    }) as Socket['emit'];
    return socket;
  };
  return { factory, armNextProduce: () => (armed = true), dropped: () => dropped };
}

/** Every value in the topic, read to its end (at most 60 s). */
async function valuesIn(env: TestEnv, admin: Admin, topic: string): Promise<Set<string>> {
  const ends = await admin.fetchTopicOffsets(topic);
  const left = new Map(ends.filter((p) => Number(p.high) > 0).map((p) => [p.partition, BigInt(p.high)]));
  const values = new Set<string>();
  const consumer = env.kafka.consumer({ groupId: `${topic}-reader` });
  try {
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        values.add(String(message.value));
        if (BigInt(message.offset) + 1n >= (left.get(partition) ?? 0n)) left.delete(partition);
      },
    });
    await waitFor(async () => (left.size === 0 ? true : undefined), 60_000, `the end of ${topic}`);
    return values;
  } finally {
    await consumer.disconnect();
    await admin.deleteGroups([`${topic}-reader`]).catch(() => undefined);
  }
}

const batch = (name: string, n = 5) => Array.from({ length: n }, (_, i) => ({ key: 'one-user', value: `${name}${i}` }));

describe('the idempotent producer when a written request fails', () => {
  let env: TestEnv;
  let admin: Admin;
  beforeAll(async () => {
    env = await createTestEnv();
    admin = env.kafka.admin();
    await admin.connect();
  }, 120_000);
  afterAll(async () => {
    await admin?.disconnect();
    await env?.dispose();
  });

  it('When a written request loses its answer while another send to the same partition waits, then both sends are in the topic', async () => {
    const topic = `${env.config.kafka.topicPrefix}lost-answer`;
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    const sockets = answerDroppingSockets();
    const kafka = new Kafka({
      clientId: 'lost-answer-test',
      brokers: [...env.config.kafka.brokers],
      socketFactory: sockets.factory,
      logLevel: logLevel.NOTHING,
    });
    const producer = createSafeProducer(kafka);
    await producer.connect();
    try {
      await producer.send({ topic, acks: -1, messages: batch('warm-up') });
      for (let round = 0; round < 3; round += 1) {
        sockets.armNextProduce();
        await Promise.all([
          producer.send({ topic, acks: -1, messages: batch(`a${round}-`) }),
          producer.send({ topic, acks: -1, messages: batch(`b${round}-`) }),
        ]);
      }
    } finally {
      await producer.disconnect();
    }
    expect(sockets.dropped()).toBe(3);
    const values = await valuesIn(env, admin, topic);
    const sent = [0, 1, 2].flatMap((r) => [...batch(`a${r}-`), ...batch(`b${r}-`)].map((m) => m.value));
    expect(sent.filter((v) => !values.has(v))).toEqual([]);
  }, 120_000);

  it('When one partition of a request is refused and another written, then the next send of as many records to the written partition is written too', async () => {
    const topic = `${env.config.kafka.topicPrefix}half-refused`;
    await admin.createTopics({
      topics: [{ topic, numPartitions: 2, configEntries: [{ name: 'max.message.bytes', value: '2000' }] }],
      waitForLeaders: true,
    });
    const producer = createSafeProducer(env.kafka);
    await producer.connect();
    try {
      const half = producer.send({
        topic,
        acks: -1,
        messages: [
          ...batch('written-').map((m) => ({ ...m, partition: 0 })),
          { key: 'other-user', value: 'x'.repeat(10_000), partition: 1 },
        ],
      });
      await expect(half).rejects.toThrow();
      await producer.send({ topic, acks: -1, messages: batch('next-').map((m) => ({ ...m, partition: 0 })) });
    } finally {
      await producer.disconnect();
    }
    const values = await valuesIn(env, admin, topic);
    expect(batch('next-').filter((m) => !values.has(m.value))).toEqual([]);
  }, 120_000);
});
