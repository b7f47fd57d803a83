import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupName, topicName } from '../../shared/events/index.js';
import { groupProgress } from '../../shared/kafka/index.js';
import { createIntakeLog } from '../../shared/logger/index.js';
import { valueSubject } from '../../shared/schema-registry/index.js';
import {
  createErrorTimeseries,
  createTimeseriesReader,
  TRIP_BUILDER_ERROR_KEY,
  type DeadLetter,
  type StoredEntry,
} from '../../shared/timeseries/index.js';
import { inputProducer, intakeLogDir, workerClients } from '../../test/helpers/pipeline.js';
import { createTestEnv, waitFor, type TestEnv } from '../../test/helpers/test-env.js';
import { entryObjectId } from '../../shared/ids/entry-identity.js';
import { createTimeseriesWriter } from '../converter/store/cassandra-timeseries-writer.js';
import { runTripBuilder, type RunningTripBuilder } from './run-trip-builder.js';
import { createCassandraTransitStops } from './store/cassandra-transit-stops.js';
import { createCassandraTripStore } from './store/cassandra-trip-store.js';
import { createUsercacheDocuments } from './store/cassandra-usercache-documents.js';

// One partition, so both users below share it: a user whose rebuild throws would hold the other back.
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

function location(userId: string, i: number, entryJson?: string): StoredEntry {
  const ts = TS + i * 30;
  const oid = entryObjectId(userId, 'sensor-data', KEY, ts);
  return {
    userId,
    key: KEY,
    type: 'sensor-data',
    writeTs: ts,
    dataTs: ts,
    oid,
    entryJson:
      entryJson ??
      JSON.stringify({
        _id: { $oid: oid },
        metadata: { key: KEY, write_ts: ts, time_zone: 'UTC' },
        data: {
          ts,
          latitude: 39.59 + i * 0.001,
          longitude: -104.98,
          loc: { type: 'Point', coordinates: [-104.98, 39.59 + i * 0.001] },
          accuracy: 10,
          filter: 'time',
        },
      }),
  };
}

describe('trip builder: one user cannot stall a partition', () => {
  it('When a user’s stored data makes the rebuild throw, then the failure is in the error timeseries and the other users of the partition are rebuilt and committed', async () => {
    const broken = randomUUID();
    const fine = randomUUID();
    // A row no converter version wrote (a bad import, a bug since fixed): its document does not parse.
    const entries = [
      location(broken, 0, '{"metadata": {"key": '),
      location(fine, 0),
      location(fine, 1),
      location(fine, 2),
    ];
    expect(await createTimeseriesWriter(env.cql).write(entries)).toEqual([]);

    const topic = topicName(env.config.kafka.topicPrefix, 'timeseries');
    const encode = await env.codec.encoderFor(valueSubject(topic));
    const producer = inputProducer(env);
    await producer.send(
      topic,
      entries.map((e) => ({
        key: Buffer.from(e.userId),
        value: encode({
          user_id: e.userId,
          key: e.key,
          type: e.type,
          write_ts: e.writeTs,
          data_ts: e.dataTs,
          entry_json: e.entryJson,
        }),
      })),
    );
    await producer.close();

    const rebuilt: string[] = [];
    builder = await runTripBuilder(workerClients(env, 'isolation-trip-builder'), {
      codec: env.codec,
      timeseries: createTimeseriesReader(env.cql),
      trips: createCassandraTripStore(env.cql),
      documents: createUsercacheDocuments(env.cql),
      errors: createErrorTimeseries(env.cql),
      transitStops: createCassandraTransitStops(env.cql),
      topicPrefix: env.config.kafka.topicPrefix,
      logger: env.logger,
      pipelineLog: createIntakeLog({ dir: intakeLogDir(), maxBytes: 100 * 1024 ** 2, maxFiles: 5 }, 7, 'info', 'trips'),
      now: () => Date.now() / 1000,
      onRebuilt: (userId) => rebuilt.push(userId),
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
        reason: expect.stringMatching(/^trip rebuild failed: SyntaxError/),
        source_topic: topic,
        source_partition: 0,
        source_offset: 0,
      }),
    ]);
  });
});
