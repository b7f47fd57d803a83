import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupName, topicName } from '../../shared/events/index.js';
import { createIdempotentProducer, groupProgress, sendChunked } from '../../shared/kafka/index.js';
import { valueSubject } from '../../shared/schema-registry/index.js';
import {
  createErrorTimeseries,
  isReplayable,
  TRIP_BUILDER_ERROR_KEY,
  type DeadLetter,
} from '../../shared/timeseries/index.js';
import { startTripBuilder } from '../../test/helpers/pipeline.js';
import { createTestEnv, waitFor, type TestEnv } from '../../test/helpers/test-env.js';
import { rebuildUser } from './rebuild-user.js';
import type { RunningTripBuilder } from './run-trip-builder.js';

// One partition, so both users below share it: a failure row that cannot be stored would hold the other back.
let env: TestEnv;
let builder: RunningTripBuilder | undefined;
beforeAll(async () => {
  env = await createTestEnv({ ITINERA_PARTITIONS: '1' });
});
afterAll(async () => {
  await builder?.stop();
  await env.dispose();
});

const KEY = 'background/filtered_location';
const TS = 1617919770;

describe('trip builder: a failure row Cassandra refuses', () => {
  it('When the failure row of a user is too large for Cassandra, then a reduced row is stored and the other users of the partition are rebuilt and committed', async () => {
    const broken = randomUUID();
    const fine = randomUUID();
    const topic = topicName(env.config.kafka.topicPrefix, 'timeseries');
    const encode = await env.codec.encoderFor(valueSubject(topic));
    const producer = createIdempotentProducer(env.kafka);
    await producer.connect();
    await sendChunked(
      producer,
      topic,
      [broken, fine].map((user) => ({
        key: user,
        value: encode({ user_id: user, key: KEY, type: 'sensor-data', write_ts: TS, data_ts: TS, entry_json: '{}' }),
      })),
    );
    await producer.disconnect();

    const rebuilt: string[] = [];
    // An error whose message embeds 20 MB of data: the row recording it (reason and stack) is over the 16 MiB
    // request Cassandra takes, which it refuses as an invalid request, not as an outage.
    builder = await startTripBuilder(env, 7, async (deps, userId, from) => {
      if (userId === broken) throw new RangeError(`cannot place ${'x'.repeat(20 * 1024 * 1024)}`);
      rebuilt.push(userId);
      return rebuildUser(deps, userId, from);
    });

    const admin = env.kafka.admin();
    await admin.connect();
    try {
      await waitFor(
        async () => {
          const progress = await groupProgress(admin, groupName(env.config.kafka.topicPrefix, 'tripBuilder'), topic);
          return progress.high > 0 && progress.committed === progress.high ? true : undefined;
        },
        60_000,
        'the trip builder to commit the whole partition',
      );
    } finally {
      await admin.disconnect();
    }
    expect(rebuilt).toEqual([fine]);
    const letters: DeadLetter[] = [];
    for await (const l of createErrorTimeseries(env.cql).all()) letters.push(l);
    expect(letters).toEqual([
      expect.objectContaining({
        user_id: broken,
        key: TRIP_BUILDER_ERROR_KEY,
        write_ts: TS,
        reason: expect.stringMatching(/^payload omitted: \(refused by Cassandra: .*\) trip rebuild failed: RangeError/),
        source_topic: topic,
        source_partition: 0,
        source_offset: 0,
        metadata_json: '{}',
      }),
    ]);
    expect(letters[0]!.reason.length).toBeLessThan(5000);
    expect(isReplayable(letters[0]!)).toBe(false);
  });
});
