import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupName, topicName } from '../../shared/events/index.js';
import { groupProgress } from '../../shared/kafka/index.js';
import type { RunningConverter } from '../../services/converter/run-converter.js';
import { startGateway, type RunningGateway } from '../helpers/gateway.js';
import { startConverter, startServiceProcess, startTripBuilder } from '../helpers/pipeline.js';
import { DAY_OF, loadGroundTruth, phoneEntries, REAL_DAYS } from '../helpers/real-days.js';
import { createTestEnv, waitFor, type TestEnv } from '../helpers/test-env.js';
import { pushEntries, settledTrips, timeline, tripShape } from '../helpers/trips.js';

const logDir = mkdtempSync(join(tmpdir(), 'itinera-trip-crash-'));
const outFile = join(logDir, 'trip-builder.out');

let env: TestEnv;
let gw: RunningGateway;
let converter: RunningConverter;

beforeAll(async () => {
  env = await createTestEnv();
  gw = await startGateway(env);
  converter = await startConverter(env);
});
afterAll(async () => {
  await converter?.stop();
  await gw?.close();
  await env?.dispose();
});

const startTripBuilderProcess = () => startServiceProcess(env, 'services/trip-builder/main.ts', outFile, logDir);

/** Trips without their ids: a user's trip ids differ between users by design. */
const withoutIds = (trips: any[]) => tripShape(trips).map(({ id: _id, ...rest }) => rest);

describe('trip builder crashes', () => {
  it('When the trip builder is SIGKILLed twice while five real days stream in, then every day has the same trips as an undisturbed build, none doubled', async () => {
    // The undisturbed build: the same days through an in-process trip builder that is never stopped.
    const calm = await startTripBuilder(env);
    for (const name of REAL_DAYS) {
      await gw.post('/profile/create', { user: `calm-${name}` });
      await pushEntries(gw, `calm-${name}`, phoneEntries(name));
    }
    const reference = new Map<string, ReturnType<typeof withoutIds>>();
    for (const name of REAL_DAYS) {
      const trips = await settledTrips(gw, `calm-${name}`, DAY_OF[name], loadGroundTruth(name).length);
      reference.set(name, withoutIds(trips));
    }
    await calm.stop();

    // The same days for other users, streamed in small puts while the trip builder process dies twice.
    const admin = env.kafka.admin();
    await admin.connect();
    const progress = () =>
      groupProgress(
        admin,
        groupName(env.config.kafka.topicPrefix, 'tripBuilder'),
        topicName(env.config.kafka.topicPrefix, 'timeseries'),
      );
    // Each day streams in three parts, the second after the first kill and the third after the second, so every
    // restarted process has work to show progress on and to be killed in the middle of, however fast the first
    // process went through what it found.
    let kills = 0;
    const streaming = Promise.all(
      REAL_DAYS.map(async (name) => {
        await gw.post('/profile/create', { user: `crash-${name}` });
        const entries = phoneEntries(name);
        for (let i = 0; i < entries.length; i += 200) {
          const part = Math.floor((3 * i) / entries.length);
          await waitFor(async () => (kills >= part ? true : undefined), 300_000, `kill ${part} before part ${part}`);
          await pushEntries(gw, `crash-${name}`, entries.slice(i, i + 200));
          await new Promise((r) => setTimeout(r, 150));
        }
      }),
    );
    // Should the kills fail, the stream is awaited by nobody: its own failure then must not go unhandled.
    streaming.catch(() => undefined);
    let builder = startTripBuilderProcess();
    while (kills < 2) {
      const before = (await progress()).committed;
      await waitFor(
        async () => ((await progress()).committed > before ? true : undefined),
        120_000,
        'trip builder progress',
      ).catch((err: unknown) => {
        throw new Error(`${String(err)}\ntrip builder output:\n${readFileSync(outFile, 'utf8').slice(-3000)}`);
      });
      builder.kill('SIGKILL');
      await new Promise((r) => builder.once('exit', r));
      kills += 1;
      builder = startTripBuilderProcess();
    }
    await streaming;

    try {
      for (const name of REAL_DAYS) {
        const expected = JSON.stringify(reference.get(name));
        const trips = await waitFor(
          async () => {
            const t = await timeline(gw, `crash-${name}`, DAY_OF[name]);
            return JSON.stringify(withoutIds(t)) === expected ? t : undefined;
          },
          120_000,
          `${name} after the crashes to equal the undisturbed build`,
        );
        expect(new Set(trips.map((t) => t.id)).size).toBe(trips.length);
      }
    } finally {
      builder.kill('SIGTERM');
      await new Promise((r) => (builder.exitCode !== null ? r(null) : builder.once('exit', r)));
      await admin.disconnect();
    }
    expect(kills).toBe(2);
  }, 480_000);
});
