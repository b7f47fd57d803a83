import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyedProducer, type KeyedProducer } from '../../shared/kafka/index.js';
import {
  createErrorTimeseries,
  isPayloadOmitted,
  storeDeadLetter,
  TRIP_BUILDER_ERROR_KEY,
  type DeadLetter,
  type ErrorTimeseries,
} from '../../shared/timeseries/index.js';
import { startConverter } from '../../test/helpers/pipeline.js';
import { createTestEnv, type TestEnv } from '../../test/helpers/test-env.js';
import { replayDeadLetters } from './replay-dead-letters.js';
import type { RunningConverter } from './run-converter.js';

let env: TestEnv;
let converter: RunningConverter;
beforeAll(async () => {
  env = await createTestEnv();
  converter = await startConverter(env);
});
afterAll(async () => {
  await converter?.stop();
  await env.dispose();
});

const LETTERS = 600;

function letter(user: string, i: number): DeadLetter {
  const writeTs = 1617919770 + i;
  const metadata = {
    key: 'statemachine/transition',
    platform: 'android',
    type: 'message',
    write_ts: writeTs,
    time_zone: 'UTC',
  };
  return {
    user_id: user,
    key: 'statemachine/transition',
    type: 'message',
    write_ts: writeTs,
    reason: 'a converter bug, since fixed',
    source_topic: 'usercache',
    source_partition: 0,
    source_offset: i,
    failed_ts: Date.now() / 1000,
    metadata_json: JSON.stringify(metadata),
    data_json: JSON.stringify({
      currState: 'local.state.ongoing_trip',
      transition: 'local.transition.exited_geofence',
    }),
  };
}

describe('fix-usercache-processing', () => {
  it('When the error table holds many dead letters, then they are streamed: the first are sent before the last are read, all move, and neither a failed trip rebuild nor a letter stored without its payload is replayed', async () => {
    const errors = createErrorTimeseries(env.cql);
    const users = [randomUUID(), randomUUID(), randomUUID()];
    for (let i = 0; i < LETTERS; i += 50)
      await Promise.all(Array.from({ length: 50 }, (_, j) => errors.insert(letter(users[(i + j) % 3]!, i + j))));
    await errors.insert({
      ...letter(users[0]!, 0),
      key: TRIP_BUILDER_ERROR_KEY,
      reason: 'trip rebuild failed: SyntaxError',
    });
    // A letter too large for Cassandra is stored without its payload: replaying its placeholder would convert
    // nothing of the entry, so it is counted as not replayable and stays for the operator.
    const reduced = await storeDeadLetter(
      { errors, logger: env.logger },
      { ...letter(users[1]!, LETTERS + 1), data_json: JSON.stringify({ blob: 'x'.repeat(20 * 1024 * 1024) }) },
    );
    expect(isPayloadOmitted(reduced)).toBe(true);

    let read = 0;
    let readAtFirstSend: number | undefined;
    const counting: ErrorTimeseries = {
      ...errors,
      async *all() {
        for await (const l of errors.all()) {
          read += 1;
          yield l;
        }
      },
    };
    const producer = createKeyedProducer({ ...env.config.kafka, clientId: 'replay-test' });
    const watched: KeyedProducer = {
      send: (topic, records, limits) => {
        readAtFirstSend ??= read;
        return producer.send(topic, records, limits);
      },
      close: () => producer.close(),
    };
    const admin = env.kafka.admin();
    await admin.connect();
    try {
      const report = await replayDeadLetters({
        errors: counting,
        producer: watched,
        admin,
        codec: env.codec,
        topicPrefix: env.config.kafka.topicPrefix,
        waitMs: 90_000,
      });
      expect(readAtFirstSend).toBeLessThan(LETTERS);
      expect(report).toEqual({
        byKey: { 'statemachine/transition': { replayed: LETTERS, moved: LETTERS, stillFailing: 0 } },
        notReplayable: 2,
        caughtUp: true,
      });
      expect(await errors.countByKey()).toEqual({ [TRIP_BUILDER_ERROR_KEY]: 1, 'statemachine/transition': 1 });
      const left: DeadLetter[] = [];
      for await (const l of errors.all()) if (l.key === 'statemachine/transition') left.push(l);
      expect(left).toEqual([reduced]);
    } finally {
      await Promise.all([producer.close(), admin.disconnect()]);
    }
  });
});
