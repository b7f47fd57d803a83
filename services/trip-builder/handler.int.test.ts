import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupName, topicName } from '../../shared/events/index.js';
import { groupProgress } from '../../shared/kafka/index.js';
import { valueSubject } from '../../shared/schema-registry/index.js';
import {
  createErrorTimeseries,
  isReplayable,
  MAX_STORED_REASON_CHARS,
  TRIP_BUILDER_ERROR_KEY,
  type DeadLetter,
} from '../../shared/timeseries/index.js';
import { inputProducer, startTripBuilder } from '../../test/helpers/pipeline.js';
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

describe('trip builder: a rebuild that fails with an enormous error', () => {
  it('When a rebuild fails with a 20 MB error message, then a bounded failure row is stored at once and the other user of the partition is rebuilt exactly once and committed', async () => {
    const broken = randomUUID();
    const fine = randomUUID();
    const topic = topicName(env.config.kafka.topicPrefix, 'timeseries');
    const encode = await env.codec.encoderFor(valueSubject(topic));
    const producer = inputProducer(env);
    await producer.send(
      topic,
      [broken, fine].map((user) => ({
        key: Buffer.from(user),
        value: encode({ user_id: user, key: KEY, type: 'sensor-data', write_ts: TS, data_ts: TS, entry_json: '{}' }),
      })),
    );
    await producer.close();

    const rebuilt: string[] = [];
    // An error whose message embeds 20 MB of data. Written whole, the row recording it (reason and stack) would be
    // over the request Cassandra takes; depending on the machine's load it was refused or timed out, and a timeout
    // is an outage that retries the batch, rebuilding the other user again. The row is bounded before any write.
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
        reason: expect.stringMatching(/^trip rebuild failed: RangeError: cannot place x+…$/),
        source_topic: topic,
        source_partition: 0,
        source_offset: 0,
      }),
    ]);
    expect(letters[0]!.reason.length).toBe(MAX_STORED_REASON_CHARS + 1);
    expect(letters[0]!.data_json.length).toBeLessThan(20_000);
    expect(isReplayable(letters[0]!)).toBe(false);
  });
});
