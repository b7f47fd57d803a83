import { randomUUID } from 'node:crypto';
import type { Admin, Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupName, topicName } from '../../../shared/events/index.js';
import { createTripBuilderStateTable } from '../../../shared/tables/index.js';
import { createCassandraTripStore } from '../../trip-builder/store/cassandra-trip-store.js';

const scanResumePoints = (cql: Parameters<typeof createTripBuilderStateTable>[0]) =>
  createTripBuilderStateTable(cql).scan();
import { createTestEnv, type TestEnv } from '../../../test/helpers/test-env.js';
import { GroupProgress } from '../api/schemas.js';
import { createBehindUsersTracker, findBehindUsers } from './behind-users.js';
import { createPipelineMonitor, PIPELINE_GROUPS } from './pipeline-monitor.js';

let env: TestEnv;
let admin: Admin;
let producer: Producer;
beforeAll(async () => {
  env = await createTestEnv();
  admin = env.kafka.admin();
  // Records placed on chosen partitions, which the project's keyed producer never does: kafkajs' own producer.
  producer = env.kafka.producer();
  await Promise.all([admin.connect(), producer.connect()]);
});
afterAll(async () => {
  await Promise.all([admin?.disconnect(), producer?.disconnect()]);
  await env.dispose();
});

async function produce(topic: string, partition: number, count: number): Promise<void> {
  await producer.send({
    topic,
    acks: -1,
    messages: Array.from({ length: count }, (_, i) => ({ partition, value: Buffer.from(`record ${i}`) })),
  });
}

async function commit(group: string, topic: string, partition: number, offset: number): Promise<void> {
  await admin.setOffsets({ groupId: group, topic, partitions: [{ partition, offset: String(offset) }] });
}

describe('pipeline monitor', () => {
  it('When a group commits between samples, then lag, rate and lastCommitAt follow; a group with lag and no commit for stalledMinutes is stalled', async () => {
    const prefix = env.config.kafka.topicPrefix;
    const usercache = topicName(prefix, 'usercache');
    const timeseries = topicName(prefix, 'timeseries');
    const converter = groupName(prefix, 'converter');
    const tripBuilder = groupName(prefix, 'tripBuilder');
    await produce(usercache, 0, 10);
    await produce(usercache, 1, 5);
    await produce(timeseries, 2, 3);
    await commit(converter, usercache, 0, 4);

    let clock = 1_700_000_000_000;
    const monitor = createPipelineMonitor({
      admin,
      topicPrefix: prefix,
      groups: PIPELINE_GROUPS,
      windowMs: 60_000,
      // 6 seconds.
      stalledMinutes: 0.1,
      now: () => clock,
    });
    expect(monitor.snapshot()).toEqual({ sampledAt: null, stalledMinutes: 0.1, groups: [] });

    await monitor.sample();
    let snap = monitor.snapshot();
    expect(snap.sampledAt).toBe(clock / 1000);
    expect(snap.groups.map((g) => [g.group, g.topic])).toEqual([
      [converter, usercache],
      [tripBuilder, timeseries],
    ]);
    for (const g of snap.groups) expect(GroupProgress.parse(g)).toEqual(g);
    let [conv, builder] = snap.groups;
    expect(conv!.partitions.map((p) => [p.partition, p.committed, p.end, p.lag])).toEqual([
      [0, 4, 10, 6],
      // Nothing committed: the lag runs from the low watermark.
      [1, -1, 5, 5],
      [2, -1, 0, 0],
      [3, -1, 0, 0],
    ]);
    expect(conv).toMatchObject({ lag: 11, rate: 0, stalled: false });
    expect(conv!.partitions.every((p) => p.lastCommitAt === null && p.rate === 0)).toBe(true);
    expect(builder).toMatchObject({ lag: 3, rate: 0, stalled: false });

    // 10 s later the converter has committed partition 0 to its end; the trip builder has done nothing.
    await commit(converter, usercache, 0, 10);
    clock += 10_000;
    await monitor.sample();
    snap = monitor.snapshot();
    [conv, builder] = snap.groups;
    expect(conv!.partitions[0]).toEqual({
      partition: 0,
      committed: 10,
      end: 10,
      lag: 0,
      lastCommitAt: clock / 1000,
      rate: 0.6,
    });
    expect(conv!.partitions[1]).toMatchObject({ committed: -1, lag: 5, lastCommitAt: null, rate: 0 });
    expect(conv).toMatchObject({ lag: 5, rate: 0.6, stalled: false });
    // Watched for 10 s with lag and never seen committing.
    expect(builder).toMatchObject({ lag: 3, rate: 0, stalled: true });

    // 7 s on, no commit anywhere: the converter still has lag (partition 1) and is stalled too.
    clock += 7_000;
    await monitor.sample();
    [conv, builder] = monitor.snapshot().groups;
    expect(conv).toMatchObject({ lag: 5, stalled: true });
    expect(conv!.partitions[0]!.lastCommitAt).toBe((clock - 7_000) / 1000);
    expect(conv!.partitions[0]!.rate).toBeCloseTo(6 / 17);
    expect(builder!.stalled).toBe(true);

    // The trip builder's first commit: it progresses, no longer stalled; past the window, the converter's rate is 0.
    await commit(tripBuilder, timeseries, 2, 1);
    clock += 60_000;
    await monitor.sample();
    [conv, builder] = monitor.snapshot().groups;
    expect(builder).toMatchObject({ lag: 2, stalled: false });
    expect(builder!.partitions[2]).toMatchObject({ committed: 1, lastCommitAt: clock / 1000 });
    expect(conv).toMatchObject({ rate: 0, stalled: true });

    // start() samples at once and on its timer; stop() ends it.
    const timed = createPipelineMonitor({ admin, topicPrefix: prefix, groups: PIPELINE_GROUPS, sampleEveryMs: 100 });
    timed.start();
    await new Promise((r) => setTimeout(r, 500));
    await timed.stop();
    expect(timed.snapshot().groups).toHaveLength(2);
    expect(timed.snapshot().groups[0]!.lag).toBe(5);
  });

  it("When resume points lag behind the users' last pushes, then the users more than behindHours behind are counted and listed, furthest first", async () => {
    const trips = createCassandraTripStore(env.cql);
    // The last pushes come after the resume points are saved (else the trip builder has seen them: see caughtUp).
    const now = Math.floor(Date.now() / 1000) + 3600;
    const users = Array.from({ length: 5 }, () => randomUUID());
    const behindHours = [1, 7, 30, 12, 0];
    for (const [i, u] of users.entries())
      await trips.saveResumePoint(u, { fromTs: now - behindHours[i]! * 3600, place: undefined });
    const unknown = randomUUID();
    await trips.saveResumePoint(unknown, { fromTs: 0, place: undefined });
    // Stayed put for 30 h, but the trip builder saved its resume point after the last push: it is not behind.
    const caughtUp = randomUUID();
    await trips.saveResumePoint(caughtUp, { fromTs: now - 3600 - 30 * 3600, place: undefined });
    const lastPush = (u: string) => (u === unknown ? undefined : u === caughtUp ? now - 2 * 3600 : now);

    const rows = [];
    for await (const r of scanResumePoints(env.cql)) rows.push(r);
    expect(rows).toHaveLength(7);
    expect(rows.every((r) => r.updateTs !== null)).toBe(true);

    const behind = await findBehindUsers(scanResumePoints(env.cql), lastPush, 6);
    expect(behind.count).toBe(3);
    expect(behind.users.map((u) => u.userId)).toEqual([users[2], users[3], users[1]]);
    expect(behind.users[0]).toEqual({
      userId: users[2],
      resumeFromTs: now - 30 * 3600,
      lastPush: now,
      behindSeconds: 30 * 3600,
    });
    const firstTwo = await findBehindUsers(scanResumePoints(env.cql), lastPush, 6, 2);
    expect(firstTwo).toEqual({ thresholdHours: 6, count: 3, users: behind.users.slice(0, 2) });

    // The tracker scans at most once per minRefreshMs; requests read its last answer.
    let scans = 0;
    let clock = 0;
    const tracker = createBehindUsersTracker({
      scan: () => {
        scans += 1;
        return scanResumePoints(env.cql);
      },
      lastPushOf: lastPush,
      behindHours: 6,
      minRefreshMs: 1000,
      now: () => clock,
    });
    expect(tracker.current()).toBeUndefined();
    const [a, b] = await Promise.all([tracker.refresh(), tracker.refresh()]);
    expect(a).toEqual(behind);
    expect(b).toBe(a);
    await tracker.refresh();
    expect(scans).toBe(1);
    clock += 1000;
    await tracker.refresh();
    expect(scans).toBe(2);
    expect(tracker.current()).toEqual(behind);
  });
});
