import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topicName, toUsercacheRecord, type UsercacheRecord } from '../../shared/events/index.js';
import type { KeyedRecord } from '../../shared/kafka/index.js';
import { valueSubject } from '../../shared/schema-registry/index.js';
import { createErrorTimeseries, createTimeseriesReader, type DeadLetter } from '../../shared/timeseries/index.js';
import { inputProducer, startConverter } from '../../test/helpers/pipeline.js';
import { createTestEnv, waitFor, type TestEnv } from '../../test/helpers/test-env.js';
import type { RunningConverter } from './run-converter.js';

// One partition: every record below is in the same partition as the good entry that comes after them, so a bad
// record that stalls its partition keeps the good one from ever being stored.
let env: TestEnv;
let converter: RunningConverter;
beforeAll(async () => {
  env = await createTestEnv({ ITINERA_PARTITIONS: '1' });
  converter = await startConverter(env);
});
afterAll(async () => {
  await converter?.stop();
  await env.dispose();
});

const WRITE_TS = 1617919770;
const transition = (data: Record<string, unknown>, writeTs: number) => ({
  key: 'statemachine/transition',
  type: 'message',
  writeTs,
  platform: 'android',
  metadata: {
    key: 'statemachine/transition',
    platform: 'android',
    type: 'message',
    write_ts: writeTs,
    time_zone: 'UTC',
  },
  data,
});

async function publish(user: string, records: (UsercacheRecord | KeyedRecord)[]): Promise<void> {
  const topic = topicName(env.config.kafka.topicPrefix, 'usercache');
  const encode = await env.codec.encoderFor(valueSubject(topic));
  const producer = inputProducer(env);
  try {
    await producer.send(
      topic,
      records.map((r) => ('value' in r ? r : { key: Buffer.from(user), value: encode(r) })),
    );
  } finally {
    await producer.close();
  }
}

async function deadLetters(user: string): Promise<DeadLetter[]> {
  const all: DeadLetter[] = [];
  for await (const l of createErrorTimeseries(env.cql).all()) if (l.user_id === user) all.push(l);
  return all;
}

describe('converter: nothing stalls a partition', () => {
  it('When records that do not parse, grow too large, or name prototype properties come before a good entry, then each is a dead letter with its reason and the good entry is stored', async () => {
    const user = randomUUID();
    const received = Date.now() / 1000;
    const record = (e: ReturnType<typeof transition>) => toUsercacheRecord(user, e, received);
    // "1e20," is 5 bytes on the wire and 22 once JSON.stringify prints it in full: 1 MB in, 4.4 MB out, past the
    // timeseries topic's 4 MiB.
    const growing: UsercacheRecord = {
      ...record(transition({}, WRITE_TS + 2)),
      key: 'background/battery',
      metadata_json: JSON.stringify({
        key: 'background/battery',
        platform: 'android',
        type: 'sensor-data',
        write_ts: WRITE_TS + 2,
        time_zone: 'UTC',
      }),
      data_json: `{"ts":${WRITE_TS + 2},"samples":[${Array(200_000).fill('1e20').join(',')}]}`,
    };
    await publish(user, [
      { ...record(transition({}, WRITE_TS + 1)), metadata_json: '{"key": "statemachine/transition", "time_zone": ' },
      growing,
      record(transition({ currState: 'constructor' }, WRITE_TS + 3)),
      record(transition({ currState: 'local.state.start', transition: '__proto__' }, WRITE_TS + 4)),
      record(transition({ currState: 'toString', transition: 'hasOwnProperty' }, WRITE_TS + 5)),
      { ...record(transition({}, WRITE_TS + 6)), key: 'constructor' },
      // Bytes that are no Avro record, under a key that is no user id.
      { key: Buffer.from('not-a-user'), value: Buffer.from('garbage') },
      record(
        transition(
          { currState: 'local.state.ongoing_trip', transition: 'local.transition.exited_geofence' },
          WRITE_TS + 9,
        ),
      ),
    ]);

    const reader = createTimeseriesReader(env.cql);
    await waitFor(
      async () => ((await reader.countByKey(user))['statemachine/transition'] === 1 ? true : undefined),
      60_000,
      'the good entry after the bad ones',
    );
    expect(await reader.countByKey(user)).toEqual({ 'statemachine/transition': 1 });
    const stored = await reader.find(user, null, 'metadata.write_ts', WRITE_TS, WRITE_TS + 10);
    expect(JSON.parse(stored[0]!).data).toMatchObject({ curr_state: 2, transition: 1 });

    const letters = await waitFor(
      async () => {
        const found = await deadLetters(user);
        return found.length === 6 ? found : undefined;
      },
      30_000,
      'six dead letters',
    );
    const reasonAt = (writeTs: number) => letters.find((l) => l.write_ts === writeTs)?.reason;
    expect(reasonAt(WRITE_TS + 1)).toMatch(/metadata is not JSON/);
    expect(reasonAt(WRITE_TS + 2)).toMatch(/converted entry is \d+ bytes, more than the 2097152 bytes/);
    expect(reasonAt(WRITE_TS + 3)).toMatch(/unknown state "constructor"/);
    expect(reasonAt(WRITE_TS + 4)).toMatch(/unknown transition "__proto__"/);
    expect(reasonAt(WRITE_TS + 5)).toMatch(/unknown state "toString"/);
    expect(reasonAt(WRITE_TS + 6)).toMatch(/unknown key "constructor"/);
    // The unreadable record is kept, without its payload, under the nil user (its key is no user id).
    // Waited for: its key hashes to another partition than the user's, so it may be stored after the user's entries.
    const undecodable = await waitFor(
      async () => {
        const found: DeadLetter[] = [];
        for await (const l of createErrorTimeseries(env.cql).all()) if (l.key === '(undecodable)') found.push(l);
        return found.length > 0 ? found : undefined;
      },
      30_000,
      'the undecodable record as a dead letter',
    );
    expect(undecodable).toHaveLength(1);
    expect(undecodable[0]).toMatchObject({
      user_id: '00000000-0000-0000-0000-000000000000',
      reason: expect.stringMatching(/undecodable record/),
    });
  });
});
