import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupName, topicName, type GroupId, type TopicId } from '../../shared/events/index.js';
import { groupProgress } from '../../shared/kafka/index.js';
import type { RunningConverter } from '../../services/converter/run-converter.js';
import { startGateway, type RunningGateway } from '../helpers/gateway.js';
import { killMidWork, type Kill, startConverter, startServiceProcess, startTripBuilder } from '../helpers/pipeline.js';
import { DAY_OF, loadGroundTruth, phoneEntries, REAL_DAYS } from '../helpers/real-days.js';
import { createTestEnv, waitFor, type TestEnv } from '../helpers/test-env.js';
import { pushEntries, timeline, tripShape } from '../helpers/trips.js';

const logDir = mkdtempSync(join(tmpdir(), 'itinera-trip-crash-'));
const outFile = join(logDir, 'trip-builder.out');
/** Parts each crash user's day is pushed in, one before each process's start. */
const PARTS = 3;

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
    const admin = env.kafka.admin();
    await admin.connect();
    const prefix = env.config.kafka.topicPrefix;
    const progress = (group: GroupId = 'tripBuilder', topic: TopicId = 'timeseries') =>
      groupProgress(admin, groupName(prefix, group), topicName(prefix, topic));
    /** The converter has taken every put entry and the trip builder every entry it published: trips are final. */
    const caughtUp = async () => {
      for (const [group, topic] of [
        ['converter', 'usercache'],
        ['tripBuilder', 'timeseries'],
      ] as const) {
        await waitFor(
          async () => {
            const { committed, high } = await progress(group, topic);
            return committed === high ? true : undefined;
          },
          120_000,
          `the ${group} group to have committed all of ${topic}`,
        );
      }
    };

    // The undisturbed build: the same days through an in-process trip builder that is never stopped.
    const calm = await startTripBuilder(env);
    for (const name of REAL_DAYS) {
      await gw.post('/profile/create', { user: `calm-${name}` });
      await pushEntries(gw, `calm-${name}`, phoneEntries(name));
    }
    await caughtUp();
    const reference = new Map<string, ReturnType<typeof withoutIds>>();
    for (const name of REAL_DAYS) {
      const trips = await timeline(gw, `calm-${name}`, DAY_OF[name]);
      expect(trips.length, `calm trips of ${name}`).toBeGreaterThanOrEqual(loadGroundTruth(name).length);
      reference.set(name, withoutIds(trips));
    }
    await calm.stop();

    // The same days for other users, in small puts, while the trip builder process dies twice. Each day goes in
    // three parts: the first before the first process starts, the second after the first kill, the third after the
    // second; so every process finds a backlog when it joins its group, and the first two are killed in their first
    // round over it: what arrives while a process runs is built and committed before a kill decided on seeing it lands.
    for (const name of REAL_DAYS) await gw.post('/profile/create', { user: `crash-${name}` });
    const pushPart = (part: number) =>
      Promise.all(
        REAL_DAYS.map((name) => {
          const entries = phoneEntries(name);
          const size = Math.ceil(entries.length / PARTS);
          return pushEntries(gw, `crash-${name}`, entries.slice(part * size, (part + 1) * size), 200);
        }),
      );
    const group = async () => (await admin.describeGroups([groupName(prefix, 'tripBuilder')])).groups[0]!;
    const kills: Kill[] = [];
    /** Member ids of the processes killed so far: one lingers in the group until its session times out. */
    const killedMembers = new Set<string>();
    await pushPart(0);
    let builder = startTripBuilderProcess();
    for (let part = 1; part < PARTS; part += 1) {
      // The process holds its partitions (the group is stable with a member no killed process held), and records
      // wait that nobody has committed.
      const atKill = await waitFor(
        async () => {
          const { state, members } = await group();
          if (state !== 'Stable' || !members.some((m) => !killedMembers.has(m.memberId))) return undefined;
          const now = await progress();
          return now.high > now.committed ? { ...now, members } : undefined;
        },
        120_000,
        'the trip builder to join its group with records to build',
      ).catch((err: unknown) => {
        throw new Error(`${String(err)}\ntrip builder output:\n${readFileSync(outFile, 'utf8').slice(-3000)}`);
      });
      for (const m of atKill.members) killedMembers.add(m.memberId);
      kills.push(await killMidWork(builder, atKill.high, progress));
      await pushPart(part);
      builder = startTripBuilderProcess();
    }

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
    // Each kill ended the process by SIGKILL, not an exit of its own, and left records that were waiting for it
    // uncommitted: the crash interrupted its work, and the next process had that work to do again.
    expect(kills.map((k) => k.signal)).toEqual(['SIGKILL', 'SIGKILL']);
    expect(kills.filter((k) => k.uncommitted <= 0)).toEqual([]);
  }, 480_000);
});
