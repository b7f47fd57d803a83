import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCassandraClient } from '../cassandra/index.js';
import { topicName } from '../events/index.js';
import { createKafka, createKeyedProducer } from '../kafka/index.js';
import { createAvroCodec, createSchemaRegistry } from '../schema-registry/index.js';
import { failure } from '../../test/helpers/failure.js';
import { createTestEnv, type TestEnv } from '../../test/helpers/test-env.js';
import { DependencyUnavailableError } from './app-error.js';
import { isOutage } from './classify.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env.dispose();
});

describe('isOutage on what the real servers answer', () => {
  it('When Cassandra refuses a request as invalid (its message says nothing of "invalid"), then it is no outage and is not wrapped as one', async () => {
    const err = await failure(
      env.cql.write('INSERT INTO users_by_email (user_email, uuid) VALUES (?, ?)', ['', randomUUID()]),
    );
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/Key may not be empty/);
    expect(err).not.toBeInstanceOf(DependencyUnavailableError);
    expect(isOutage(err)).toBe(false);
  });

  it('When a request is too big for Cassandra, then it is no outage', async () => {
    const err = await failure(
      env.cql.write('INSERT INTO users_by_email (user_email, oid) VALUES (?, ?)', [
        'big@example.org',
        'x'.repeat(17 * 1024 * 1024),
      ]),
    );
    expect(err).not.toBeInstanceOf(DependencyUnavailableError);
    expect(isOutage(err)).toBe(false);
  });

  it('When no Cassandra host answers, then it is an outage', async () => {
    const client = createCassandraClient({ contactPoints: ['127.0.0.1:1'], localDataCenter: 'datacenter1' });
    const err = await failure(client.connect());
    await client.shutdown();
    expect(isOutage(err)).toBe(true);
  });

  it('When Kafka refuses a message as too large, then it is no outage', async () => {
    const producer = createKeyedProducer({ ...env.config.kafka, clientId: 'classify-test' });
    try {
      const err = await failure(
        producer.send(topicName(env.config.kafka.topicPrefix, 'usercache'), [
          { key: Buffer.from('k'), value: Buffer.alloc(5 * 1024 * 1024, 1) },
        ]),
      );
      expect(err).toBeInstanceOf(Error);
      expect(isOutage(err)).toBe(false);
    } finally {
      await producer.close();
    }
  });

  it('When no Kafka broker answers, then it is an outage', async () => {
    const kafka = createKafka({
      brokers: ['127.0.0.1:1'],
      clientId: 'classify-test',
      logger: env.logger,
      connectionTimeout: 200,
      retry: { retries: 1, initialRetryTime: 50 },
    });
    const producer = kafka.producer();
    const err = await failure(producer.connect());
    expect(isOutage(err)).toBe(true);
  });

  it('When the schema registry does not answer, then it is an outage; when it knows no such schema id, it is not', async () => {
    // Confluent wire format: magic byte 0, then a 4-byte schema id.
    const record = Buffer.from([0, 0x7f, 0xff, 0xff, 0xf0, 2, 0x61]);
    const away = createAvroCodec(createSchemaRegistry({ url: 'http://127.0.0.1:1', credentials: null }));
    expect(isOutage(await failure(away.decode(record)))).toBe(true);
    expect(isOutage(await failure(env.codec.decode(record)))).toBe(false);
  });
});
