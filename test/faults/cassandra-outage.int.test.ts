import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupName, topicName } from '../../shared/events/index.js';
import { groupProgress } from '../../shared/kafka/index.js';
import { createErrorTimeseries, createTimeseriesReader } from '../../shared/timeseries/index.js';
import { loadRealEntries, makeBatch } from '../helpers/phone-entries.js';
import type { RunningConverter } from '../../services/converter/run-converter.js';
import { inputProducer, startConverter, usercacheMessages } from '../helpers/pipeline.js';
import { startPrivateServer, type PrivateServer } from '../helpers/private-server.js';
import { emissionFixturesDir } from '../helpers/fixtures.js';
import { createTestEnv, waitFor, type TestEnv } from '../helpers/test-env.js';

const USERS = 4;
const ENTRIES_PER_USER = 10_000;

let cassandra: PrivateServer;
let env: TestEnv;
let converter: RunningConverter;

beforeAll(async () => {
  // A Cassandra node of this test's own, so stopping it does not fail the tests beside it.
  cassandra = await startPrivateServer('cassandra', 9142);
  env = await createTestEnv({ CASSANDRA_CONTACT_POINTS: cassandra.address });
  converter = await startConverter(env);
}, 300_000);
afterAll(async () => {
  await converter?.stop();
  await env?.dispose();
  await cassandra?.dispose();
});

describe('Cassandra stops during conversion', () => {
  it('When Cassandra is stopped mid-stream and started again, then the converter waits and resumes, and every entry is stored exactly once', async () => {
    const real = loadRealEntries(emissionFixturesDir());
    const topic = topicName(env.config.kafka.topicPrefix, 'usercache');
    const users = Array.from({ length: USERS }, () => randomUUID());
    const expected: Record<string, number> = {};
    const producer = inputProducer(env);
    const admin = env.kafka.admin();
    await admin.connect();
    const progress = () => groupProgress(admin, groupName(env.config.kafka.topicPrefix, 'converter'), topic);

    const streaming = (async () => {
      for (const [u, user] of users.entries()) {
        const batch = makeBatch(real, ENTRIES_PER_USER, u);
        for (const e of batch) {
          const key = String(e.metadata['key']).replace('background/activity', 'background/motion_activity');
          expected[key] = (expected[key] ?? 0) + 1;
        }
        for (let i = 0; i < batch.length; i += 1000) {
          await producer.send(topic, await usercacheMessages(env, user, batch.slice(i, i + 1000)));
          // Paced like phones, so the outage falls in the middle of the stream rather than after it.
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    })();

    await waitFor(async () => ((await progress()).committed > 0 ? true : undefined), 60_000, 'first conversions');
    await cassandra.stop();
    await streaming;
    // The whole stream is in Kafka and Cassandra is away: the converter must not move its offsets past entries
    // it could not store, so the committed offset stands still however long the outage lasts.
    await new Promise((r) => setTimeout(r, 3_000));
    const committedWhileDown = (await progress()).committed;
    await new Promise((r) => setTimeout(r, 5_000));
    expect((await progress()).committed).toBe(committedWhileDown);
    expect(committedWhileDown).toBeLessThan(USERS * ENTRIES_PER_USER);
    await cassandra.start();

    const total = USERS * ENTRIES_PER_USER;
    await waitFor(
      async () => {
        const { committed, high } = await progress();
        return high === total && committed === high ? true : undefined;
      },
      240_000,
      'the converter to catch up',
    );
    await producer.close();
    await admin.disconnect();

    const reader = createTimeseriesReader(env.cql);
    const stored: Record<string, number> = {};
    for (const user of users) {
      for (const [key, n] of Object.entries(await reader.countByKey(user))) stored[key] = (stored[key] ?? 0) + n;
    }
    expect(stored).toEqual(expected);
    // An outage is not a bad entry: nothing went to the error timeseries.
    expect(await createErrorTimeseries(env.cql).countByKey()).toEqual({});
  }, 600_000);
});
