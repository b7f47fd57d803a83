import kafkajs from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topicName, topics, type TopicId } from '../../shared/events/index.js';
import { createTestEnv, type TestEnv } from '../../test/helpers/test-env.js';
import { ensureTopics } from './topics.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env.dispose();
});

describe('provisioned topics', () => {
  it('When the topics are created, then each sets min.insync.replicas itself (1 on the single local broker) and the dead-letter topic takes a whole refused entry', async () => {
    const admin = env.kafka.admin();
    await admin.connect();
    try {
      const ids = Object.keys(topics) as TopicId[];
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: ids.map((id) => ({
          type: kafkajs.ConfigResourceTypes.TOPIC,
          name: topicName(env.config.kafka.topicPrefix, id),
          configNames: ['min.insync.replicas', 'max.message.bytes'],
        })),
      });
      const brokers = (await admin.describeCluster()).brokers.length;
      expect(resources).toHaveLength(ids.length);
      for (const r of resources) {
        const minIsr = r.configEntries.find((e) => e.configName === 'min.insync.replicas');
        // Set on the topic, not inherited from whatever the broker's default is.
        expect(minIsr, r.resourceName).toMatchObject({
          configValue: String(Math.min(2, brokers)),
          configSource: kafkajs.ConfigSource.TOPIC_CONFIG,
        });
      }
      const errorTopic = resources.find(
        (r) => r.resourceName === topicName(env.config.kafka.topicPrefix, 'errorTimeseries'),
      );
      expect(
        Number(errorTopic?.configEntries.find((e) => e.configName === 'max.message.bytes')?.configValue),
      ).toBeGreaterThan(4 * 1024 * 1024 * 1.34);
    } finally {
      await admin.disconnect();
    }
  });

  it('When topics existed before provisioning without min.insync.replicas, then they get it (a large enough max.message.bytes, the configured retention) and keep their other custom settings; a second run alters nothing', async () => {
    // A deployment provisioned before these settings were planned. Under the environment's prefix, so dispose()
    // deletes them.
    const prefix = `${env.config.kafka.topicPrefix}legacy.`;
    const usercache = topicName(prefix, 'usercache');
    const errorTopic = topicName(prefix, 'errorTimeseries');
    const admin = env.kafka.admin();
    await admin.connect();
    try {
      await admin.createTopics({
        waitForLeaders: true,
        topics: [
          {
            topic: usercache,
            numPartitions: 2,
            configEntries: [
              { name: 'retention.ms', value: '3600000' },
              { name: 'segment.bytes', value: '1048576' },
            ],
          },
          {
            topic: errorTopic,
            numPartitions: 1,
            configEntries: [
              { name: 'retention.ms', value: '7200000' },
              { name: 'max.message.bytes', value: '1048576' },
            ],
          },
        ],
      });
      const own = async (topic: string) => {
        const { resources } = await admin.describeConfigs({
          includeSynonyms: false,
          resources: [{ type: kafkajs.ConfigResourceTypes.TOPIC, name: topic }],
        });
        return Object.fromEntries(
          (resources[0]?.configEntries ?? [])
            .filter((e) => e.configSource === kafkajs.ConfigSource.TOPIC_CONFIG)
            .map((e) => [e.configName, e.configValue]),
        );
      };
      expect(await own(usercache)).not.toHaveProperty('min.insync.replicas');

      const alterations: unknown[] = [];
      const watched = Object.create(admin) as typeof admin;
      watched.alterConfigs = (request) => {
        alterations.push(request);
        return admin.alterConfigs(request);
      };
      await ensureTopics(watched, prefix, 2);

      const brokers = (await admin.describeCluster()).brokers.length;
      const minIsr = String(Math.min(2, brokers));
      const DAY_MS = 86_400_000;
      expect(await own(usercache)).toEqual({
        'retention.ms': String(30 * DAY_MS),
        'segment.ms': String(DAY_MS),
        'segment.bytes': '1048576',
        'min.insync.replicas': minIsr,
        'max.message.bytes': '4194304',
      });
      expect(await own(errorTopic)).toEqual({
        'retention.ms': String(56 * DAY_MS),
        'segment.ms': String(DAY_MS),
        'min.insync.replicas': minIsr,
        'max.message.bytes': '8388608',
      });
      expect(alterations).toHaveLength(1);

      // Provisioning runs on every start: once the topics meet the plan, it leaves them alone.
      await ensureTopics(watched, prefix, 2);
      expect(alterations).toHaveLength(1);
    } finally {
      await admin.disconnect();
    }
  });
});
