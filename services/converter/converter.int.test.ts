import { createKeyedProducer } from '../../shared/kafka/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createErrorTimeseries, createTimeseriesReader } from '../../shared/timeseries/index.js';
import { startGateway, type RunningGateway } from '../../test/helpers/gateway.js';
import { startConverter } from '../../test/helpers/pipeline.js';
import { createTestEnv, waitFor, type TestEnv } from '../../test/helpers/test-env.js';
import { convertEntry } from './domain/convert-entry.js';
import { replayDeadLetters } from './replay-dead-letters.js';

let env: TestEnv;
let gw: RunningGateway;
beforeAll(async () => {
  env = await createTestEnv();
  gw = await startGateway(env);
});
afterAll(async () => {
  await gw.close();
  await env.dispose();
});

const good = [
  {
    metadata: {
      key: 'background/location',
      platform: 'android',
      type: 'sensor-data',
      write_ts: 1617919770.084,
      time_zone: 'America/Denver',
    },
    data: { latitude: 39.59, longitude: -104.98, accuracy: 20, bearing: 98, ts: 1617919769, filter: 'time' },
  },
  {
    metadata: {
      key: 'statemachine/transition',
      platform: 'android',
      type: 'message',
      write_ts: 1617919771.5,
      time_zone: 'America/Denver',
    },
    data: { currState: 'local.state.ongoing_trip', transition: 'local.transition.exited_geofence' },
  },
  {
    metadata: {
      key: 'background/motion_activity',
      platform: 'ios',
      type: 'sensor-data',
      write_ts: 1617919772.25,
      time_zone: 'America/Denver',
    },
    data: {
      confidence: 'high',
      walking: true,
      stationary: false,
      automotive: false,
      cycling: false,
      running: false,
      unknown: false,
    },
  },
];
const noTs = {
  metadata: {
    key: 'background/location',
    platform: 'android',
    type: 'sensor-data',
    write_ts: 1617919780.5,
    time_zone: 'America/Denver',
  },
  data: { latitude: 39.6, longitude: -104.97, accuracy: 20, bearing: 90, filter: 'time' },
};

async function findEntries(user: string, keys: string[] | null = null): Promise<any[]> {
  const res = await gw.post('/datastreams/find_entries/timestamp', {
    user,
    key_list: keys,
    start_time: 1617900000,
    end_time: 1617999999,
    key_time: 'metadata.write_ts',
  });
  expect(res.status).toBe(200);
  return res.body.phone_data as any[];
}

describe('converter', () => {
  it('When good entries and a location without data.ts are put, then the good ones reach the timeseries, the bad one the error timeseries with its reason, and a fixed converter plus fix-usercache-processing moves it', async () => {
    await gw.post('/profile/create', { user: 'ann@example.org' });
    const other = await gw.post('/profile/create', { user: 'ben@example.org' });
    let converter = await startConverter(env);
    try {
      expect(
        (await gw.post('/usercache/put', { user: 'ann@example.org', phone_to_server: [...good, noTs] })).status,
      ).toBe(200);

      const stored = await waitFor(
        async () => {
          const found = await findEntries('ann@example.org');
          return found.length === 3 ? found : undefined;
        },
        60_000,
        'three converted entries',
      );
      expect(stored.map((e) => e.metadata.key)).toEqual([
        'background/location',
        'statemachine/transition',
        'background/motion_activity',
      ]);
      expect(stored[0].data.loc).toEqual({ type: 'Point', coordinates: [-104.98, 39.59] });
      expect(stored[1].data).toMatchObject({ curr_state: 2, transition: 1 });
      expect(stored[2].data).toMatchObject({ type: 7, confidence: 100 });
      expect(stored[0]._id.$oid).toMatch(/^[0-9a-f]{24}$/);

      const errors = createErrorTimeseries(env.cql);
      const letters = await waitFor(
        async () => {
          const all = [];
          for await (const l of errors.all()) all.push(l);
          return all.length === 1 ? all : undefined;
        },
        30_000,
        'one dead letter',
      );
      expect(letters[0]).toMatchObject({ key: 'background/location', write_ts: 1617919780.5 });
      expect(letters[0]?.reason).toMatch(/data\.ts/);
      expect(await errors.countByKey()).toEqual({ 'background/location': 1 });

      // The fix: a new converter version that dates a location without data.ts by its write time.
      await converter.stop();
      converter = await startConverter(env, (e) =>
        e.key === 'background/location' && e.data['ts'] === undefined
          ? convertEntry({ ...e, data: { ...e.data, ts: e.writeTs } })
          : convertEntry(e),
      );
      const producer = createKeyedProducer({ ...env.config.kafka, clientId: 'converter-test' });
      const admin = env.kafka.admin();
      await admin.connect();
      const report = await replayDeadLetters({
        errors,
        producer,
        admin,
        codec: env.codec,
        topicPrefix: env.config.kafka.topicPrefix,
        waitMs: 60_000,
      });
      await Promise.all([producer.close(), admin.disconnect()]);

      expect(report).toEqual({
        byKey: { 'background/location': { replayed: 1, moved: 1, stillFailing: 0 } },
        notReplayable: 0,
        caughtUp: true,
      });
      expect(await errors.countByKey()).toEqual({});
      expect(await findEntries('ann@example.org', ['background/location'])).toHaveLength(2);

      // A retried push stores nothing twice. The marker entry tells when the converter has handled the retry.
      const marker = { ...good[1], metadata: { ...good[1]!.metadata, write_ts: 1617919790 } };
      expect(
        (await gw.post('/usercache/put', { user: 'ann@example.org', phone_to_server: [...good, marker] })).status,
      ).toBe(200);
      await waitFor(
        async () =>
          (await findEntries('ann@example.org', ['statemachine/transition'])).length === 2 ? true : undefined,
        30_000,
      );
      const annUuid = (await gw.post('/profile/create', { user: 'ann@example.org' })).body.uuid as string;
      expect(await createTimeseriesReader(env.cql).countByKey(annUuid)).toEqual({
        'background/location': 2,
        'statemachine/transition': 2,
        'background/motion_activity': 1,
      });

      // Another user sees none of it.
      expect(other.status).toBe(200);
      expect(await findEntries('ben@example.org')).toEqual([]);
    } finally {
      await converter.stop();
    }
  });
});
