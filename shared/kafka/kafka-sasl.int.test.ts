/**
 * A broker that demands credentials (Confluent Cloud, MSK, Strimzi with SCRAM): configured through KAFKA_SASL_*,
 * every Kafka client Itinera builds authenticates, from provisioning to the producer the gateway and the workers
 * publish with; without them, or with a wrong password, nothing connects and the error says why. Against the local
 * broker's SASL/PLAIN listener (deploy/local/kafka/server.properties).
 */
import { inject, describe, expect, it } from 'vitest';
import { LOCAL_KAFKA_SASL } from '../../deploy/local/servers.js';
import { createTestEnv, waitFor } from '../../test/helpers/test-env.js';
import { topicName } from '../events/index.js';
import { createLogger } from '../logger/index.js';
import { createKafka } from './create-kafka.js';
import { createKeyedProducer } from './keyed-producer.js';

const saslBrokers = inject('servers').saslBrokers;
/** kafkajs logs the refusals the second test provokes as errors; they are the expected outcome here. */
const quiet = createLogger({ component: 'test', level: 'error' });
quiet.silent = true;
if (!saslBrokers)
  process.stderr.write(
    '\n!!! The Kafka SASL tests are SKIPPED: the servers come from the environment, which names no SASL listener.\n\n',
  );

describe.runIf(saslBrokers)('Kafka with SASL', () => {
  const credentials = {
    KAFKA_BROKERS: saslBrokers!,
    KAFKA_SASL_MECHANISM: LOCAL_KAFKA_SASL.mechanism,
    KAFKA_SASL_USERNAME: LOCAL_KAFKA_SASL.username,
    KAFKA_SASL_PASSWORD: LOCAL_KAFKA_SASL.password,
  };

  it('When the broker asks for credentials and they are configured, then provisioning, the producer and a consumer all authenticate', async () => {
    const env = await createTestEnv(credentials);
    try {
      const topic = topicName(env.config.kafka.topicPrefix, 'usercache');
      const producer = createKeyedProducer({ ...env.config.kafka, clientId: 'sasl-check' });
      await producer.send(topic, [{ key: Buffer.from('user-1'), value: Buffer.from('through SASL') }]);
      await producer.close();

      const consumer = env.kafka.consumer({ groupId: `${env.config.kafka.topicPrefix}sasl-check` });
      const seen: string[] = [];
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) });
      await waitFor(async () => (seen.length > 0 ? seen : undefined), 30_000, 'the record read back');
      await consumer.disconnect();
      expect(seen).toEqual(['through SASL']);
    } finally {
      await env.dispose();
    }
  });

  it("When the broker asks for credentials, then the gateway's publisher authenticates with them, and is refused without", async () => {
    const env = await createTestEnv(credentials);
    const topic = topicName(env.config.kafka.topicPrefix, 'usercache');
    const record = [{ key: Buffer.from('user-1'), value: Buffer.from('through SASL') }];
    const producer = createKeyedProducer({ ...env.config.kafka, clientId: 'sasl-keyed' });
    const refused = createKeyedProducer({
      ...env.config.kafka,
      sasl: { ...env.config.kafka.sasl!, password: 'wrong' },
      clientId: 'sasl-keyed-refused',
      retries: 0,
    });
    try {
      expect(await producer.send(topic, record)).toHaveLength(1);
      await expect(refused.send(topic, record)).rejects.toThrow();
    } finally {
      await Promise.all([producer.close(), refused.close()]);
      await env.dispose();
    }
  });

  it.each([
    [
      'a wrong password',
      { ...LOCAL_KAFKA_SASL, password: 'wrong' },
      /SASL PLAIN authentication failed|Authentication failed/i,
    ],
    ['no credentials', null, /Closed connection/],
  ] as const)('When the client has %s, then the broker refuses it', async (_, sasl, reason) => {
    const admin = createKafka({
      brokers: [saslBrokers!],
      sasl,
      clientId: 'sasl-refused',
      logger: quiet,
      connectionTimeout: 1000,
      requestTimeout: 3000,
      retry: { retries: 0 },
    }).admin();
    // The broker answers a client's first request (ApiVersions) before any login, so the refusal shows on the
    // first request that needs one.
    const listTopics = async () => {
      await admin.connect();
      return admin.listTopics();
    };
    await expect(listTopics()).rejects.toThrow(reason);
    await admin.disconnect();
  });
});
