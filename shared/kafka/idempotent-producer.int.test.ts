/**
 * The idempotent producer against the real broker when a produce request is written but its answer never comes
 * back (the broker killed between replicating and answering, as the cluster suite does): a second send to the same
 * partition must not be acknowledged without being written. The fault is injected in the client's own socket: the
 * answer to one chosen produce request is dropped and the connection closed, the broker untouched.
 */
import { connect, type Socket } from 'node:net';
import { Kafka, logLevel, type ISocketFactory } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../../test/helpers/test-env.js';
import { createIdempotentProducer } from './create-kafka.js';

/** Kafka's Produce request: its api key, at byte 4 of a request, after the size. */
const PRODUCE_API_KEY = 0;

/** Sockets whose next produce request, once armed, is sent but its answer dropped and the connection closed. */
function answerDroppingSockets(): { factory: ISocketFactory; armNextProduce(): void } {
  let armed = false;
  let dropAnswerTo: number | undefined;
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
      if (event === 'data' && dropAnswerTo !== undefined && Buffer.isBuffer(data) && data.length >= 8) {
        if (data.readInt32BE(4) === dropAnswerTo) {
          dropAnswerTo = undefined;
          socket.destroy(new Error('answer dropped by the test'));
          return true;
        }
      }
      return emit(event, ...args);
    }) as Socket['emit'];
    return socket;
  };
  return { factory, armNextProduce: () => (armed = true) };
}

describe('the idempotent producer when an answer is lost', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv();
  }, 120_000);
  afterAll(() => env?.dispose());

  it('When a written request loses its answer while another send to the same partition waits, then both sends are in the topic', async () => {
    const topic = `${env.config.kafka.topicPrefix}lost-answer`;
    const admin = env.kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    const sockets = answerDroppingSockets();
    const kafka = new Kafka({
      clientId: 'lost-answer-test',
      brokers: env.config.kafka.brokers,
      socketFactory: sockets.factory,
      logLevel: logLevel.NOTHING,
    });
    const producer = createIdempotentProducer(kafka);
    await producer.connect();
    const batch = (name: string) => Array.from({ length: 5 }, (_, i) => ({ key: 'one-user', value: `${name}${i}` }));
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

    const [{ high }] = (await admin.fetchTopicOffsets(topic)) as [{ high: string }];
    await admin.disconnect();
    const values = new Set<string>();
    const consumer = env.kafka.consumer({ groupId: `${env.config.kafka.topicPrefix}lost-answer-reader` });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve) => {
      void consumer.run({
        eachMessage: async ({ message }) => {
          values.add(String(message.value));
          if (BigInt(message.offset) + 1n >= BigInt(high)) resolve();
        },
      });
    });
    await consumer.disconnect();
    const expected = [0, 1, 2].flatMap((r) => [...batch(`a${r}-`), ...batch(`b${r}-`)].map((m) => m.value));
    expect(expected.filter((v) => !values.has(v))).toEqual([]);
  }, 120_000);
});
