import { randomUUID } from 'node:crypto';
import type { Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  groupName,
  topicName,
  toUsercacheRecord,
  UNDECODABLE_KEY,
  type UsercacheRecord,
} from '../../shared/events/index.js';
import { createKeyedProducer, type KeyedProducer, type KeyedRecord } from '../../shared/kafka/index.js';
import { valueSubject } from '../../shared/schema-registry/index.js';
import { createErrorTimeseries, createTimeseriesReader, type DeadLetter } from '../../shared/timeseries/index.js';
import { runCli, startConverter } from '../../test/helpers/pipeline.js';
import { topicSize } from '../../test/helpers/read-topic.js';
import { createTestEnv, waitFor, type TestEnv } from '../../test/helpers/test-env.js';
import { convertEntry } from './domain/convert-entry.js';
import { parseSince } from '../../shared/operations/operator-actions.js';
import { deadLetterReplayGroup, replayDeadLetterTopic } from './replay-dead-letter-topic.js';
import type { RunningConverter } from './run-converter.js';

let env: TestEnv;
let admin: Admin;
let producer: KeyedProducer;
let converter: RunningConverter | undefined;
beforeAll(async () => {
  env = await createTestEnv();
  admin = env.kafka.admin();
  producer = createKeyedProducer({ ...env.config.kafka, clientId: 'replay-topic-test' });
  await admin.connect();
});
afterAll(async () => {
  await converter?.stop();
  await Promise.all([admin?.disconnect(), producer?.close()]);
  await env.dispose();
});

const WRITE_TS = 1617919770;
const received = Date.now() / 1000;

/** A location without data.ts: today's rules refuse it ("data.ts"), the fixed ones date it by its write time. */
function locationWithoutTs(user: string, writeTs: number): UsercacheRecord {
  return toUsercacheRecord(
    user,
    {
      key: 'background/location',
      type: 'sensor-data',
      writeTs,
      platform: 'android',
      metadata: {
        key: 'background/location',
        platform: 'android',
        type: 'sensor-data',
        write_ts: writeTs,
        time_zone: 'UTC',
      },
      data: { latitude: 39.6, longitude: -104.97, accuracy: 20, bearing: 90, filter: 'time' },
    },
    received,
  );
}

/** A transition to a state no rules know: a dead letter under both the old and the fixed rules. */
function unknownState(user: string, writeTs: number): UsercacheRecord {
  return toUsercacheRecord(
    user,
    {
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
      data: { currState: 'local.state.nowhere', transition: 'local.transition.exited_geofence' },
    },
    received,
  );
}

async function publish(records: (UsercacheRecord | KeyedRecord)[]): Promise<void> {
  const topic = topicName(env.config.kafka.topicPrefix, 'usercache');
  const encode = await env.codec.encoderFor(valueSubject(topic));
  await producer.send(
    topic,
    records.map((r) => ('value' in r ? r : { key: Buffer.from(r.user_id), value: encode(r) })),
  );
}

async function letters(): Promise<DeadLetter[]> {
  const all: DeadLetter[] = [];
  for await (const l of createErrorTimeseries(env.cql).all()) all.push(l);
  return all;
}

/** The pipeline groups' committed offsets, per group and partition. */
async function pipelineOffsets(): Promise<Record<string, string[]>> {
  const prefix = env.config.kafka.topicPrefix;
  const out: Record<string, string[]> = {};
  for (const [group, topic] of [
    [groupName(prefix, 'converter'), topicName(prefix, 'usercache')],
    [groupName(prefix, 'tripBuilder'), topicName(prefix, 'timeseries')],
  ] as const) {
    const [offsets] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
    out[group] = (offsets?.partitions ?? []).sort((a, b) => a.partition - b.partition).map((p) => p.offset);
  }
  return out;
}

describe('replay-dead-letters (from the error-timeseries topic)', () => {
  it('parses --since as a UTC date or an offset', () => {
    expect(parseSince('2024-03-01')).toEqual({ date: '2024-03-01' });
    expect(parseSince('42')).toEqual({ offset: 42 });
    expect(parseSince('2024-13-45')).toBeUndefined();
    expect(parseSince('-1')).toBeUndefined();
    expect(parseSince('yesterday')).toBeUndefined();
  });

  it('When the converter dead-lettered entries, then a dry run counts them by key and reason and publishes nothing, a filtered replay sends only the matching ones, those that convert now reach the timeseries and leave the error table, and no pipeline group moves', async () => {
    const ann = randomUUID();
    const ben = randomUUID();
    converter = await startConverter(env);
    await publish([
      locationWithoutTs(ann, WRITE_TS + 1),
      locationWithoutTs(ann, WRITE_TS + 2),
      unknownState(ann, WRITE_TS + 3),
      locationWithoutTs(ben, WRITE_TS + 4),
      // Bytes that are no usercache record: a dead letter with no entry in it.
      { key: Buffer.from(ben), value: Buffer.from('garbage') },
    ]);
    await waitFor(async () => ((await letters()).length === 5 ? true : undefined), 60_000, 'five dead letters');
    await waitFor(
      async () => ((await topicSize(env, 'errorTimeseries')) === 5 ? true : undefined),
      30_000,
      'five records in the error-timeseries topic',
    );
    // The converter stops, so its group's offsets can only move through the replay (which must not move them).
    await converter.stop();
    converter = undefined;
    const offsetsBefore = await pipelineOffsets();
    const usercacheBefore = await topicSize(env, 'usercache');
    const deps = {
      kafka: env.kafka,
      admin,
      producer,
      codec: env.codec,
      topicPrefix: env.config.kafka.topicPrefix,
    };

    const progress: [number, number][] = [];
    const dry = await replayDeadLetterTopic(
      { ...deps, onProgress: (done, total) => progress.push([done, total]) },
      { since: { date: '1970-01-01' }, dryRun: true },
    );
    expect(dry).toMatchObject({
      dryRun: true,
      scanned: 5,
      matched: 5,
      replayed: 0,
      replayable: 4,
      notReplayable: 1,
      duplicates: 0,
    });
    expect(Object.keys(dry.byKey).sort()).toEqual([UNDECODABLE_KEY, 'background/location', 'statemachine/transition']);
    expect(dry.byKey['background/location']).toMatchObject({ matched: 3, replayed: 0, notReplayable: 0 });
    const locationReasons = Object.entries(dry.byKey['background/location']!.reasons);
    expect(locationReasons).toHaveLength(1);
    expect(locationReasons[0]![0]).toMatch(/data\.ts/);
    expect(locationReasons[0]![1]).toBe(3);
    expect(dry.byKey['statemachine/transition']).toMatchObject({ matched: 1, notReplayable: 0 });
    expect(Object.keys(dry.byKey['statemachine/transition']!.reasons)[0]).toMatch(/unknown state/);
    expect(dry.byKey[UNDECODABLE_KEY]).toMatchObject({ matched: 1, notReplayable: 1 });
    expect(progress[0]).toEqual([0, 5]);
    expect(progress.at(-1)).toEqual([5, 5]);
    expect(await topicSize(env, 'usercache')).toBe(usercacheBefore);

    // A date after every letter, or an offset past the end, reads nothing.
    const future = await replayDeadLetterTopic(deps, { since: { date: '2999-01-01' }, dryRun: true });
    expect(future).toMatchObject({ scanned: 0, matched: 0 });
    const pastEnd = await replayDeadLetterTopic(deps, { since: { offset: 1000 }, dryRun: true });
    expect(pastEnd).toMatchObject({ scanned: 0, matched: 0 });

    // The CLI's dry run prints the same counts and exits 0.
    const printed = await runCli(env, [
      'replay-dead-letters',
      '--since',
      '0',
      '--key',
      'background/location',
      '--dry-run',
    ]);
    expect(printed).toMatch(/dry run: scanned 5, matched 3, would replay 3, not replayable 0/);
    expect(printed).toMatch(/background\/location\t3\t0\t0/);
    expect(await topicSize(env, 'usercache')).toBe(usercacheBefore);

    // The real replay of the locations (reason matched in any case), from offset 0 of every partition.
    const report = await replayDeadLetterTopic(deps, {
      since: { offset: 0 },
      key: 'background/location',
      reason: 'DATA.TS',
    });
    expect(report).toMatchObject({
      dryRun: false,
      scanned: 5,
      matched: 3,
      replayed: 3,
      replayable: 3,
      notReplayable: 0,
      duplicates: 0,
    });
    expect(report.byKey).toEqual({
      'background/location': expect.objectContaining({ matched: 3, replayed: 3, notReplayable: 0 }),
    });
    expect(await topicSize(env, 'usercache')).toBe(usercacheBefore + 3);
    // Neither pipeline group moved; the replay used a group of its own.
    expect(await pipelineOffsets()).toEqual(offsetsBefore);
    const { groups } = await admin.listGroups();
    expect(groups.map((g) => g.groupId)).toContain(deadLetterReplayGroup(env.config.kafka.topicPrefix));

    // The fixed converter: a location without data.ts is dated by its write time.
    converter = await startConverter(env, (e) =>
      e.key === 'background/location' && e.data['ts'] === undefined
        ? convertEntry({ ...e, data: { ...e.data, ts: e.writeTs } })
        : convertEntry(e),
    );
    const reader = createTimeseriesReader(env.cql);
    await waitFor(
      async () =>
        (await reader.countByKey(ann))['background/location'] === 2 &&
        (await reader.countByKey(ben))['background/location'] === 1
          ? true
          : undefined,
      60_000,
      'the replayed locations in the timeseries',
    );
    // What converted left the error table; what was not replayed stays.
    const left = await waitFor(
      async () => {
        const found = await letters();
        return found.length === 2 ? found : undefined;
      },
      30_000,
      'the error rows of the converted locations removed',
    );
    expect(left.map((l) => l.key).sort()).toEqual([UNDECODABLE_KEY, 'statemachine/transition']);
    expect(await reader.countByKey(ann)).toEqual({ 'background/location': 2 });

    // A replay of everything: the transition fails again (back in the table and, past the end offsets captured at
    // start, in the topic), the undecodable record is counted as not replayable, the locations convert again into
    // the same rows. The transition, now twice in the topic, is sent once. Exit 3 for a letter with no entry.
    const all = await replayDeadLetterTopic(deps, { since: { date: '1970-01-01' } });
    expect(all).toMatchObject({ scanned: 5, matched: 5, replayed: 4, notReplayable: 1 });
    await waitFor(
      async () => ((await topicSize(env, 'errorTimeseries')) === 6 ? true : undefined),
      30_000,
      'the transition dead-lettered again',
    );
    expect((await letters()).map((l) => l.key).sort()).toEqual([UNDECODABLE_KEY, 'statemachine/transition']);
    expect(await reader.countByKey(ann)).toEqual({ 'background/location': 2 });
    expect(
      await runCli(env, ['replay-dead-letters', '--since', '1970-01-01', '--key', 'statemachine/transition']),
    ).toMatch(/matched 2, replayed 1, not replayable 0, duplicates 1/);
    let exitCode = 0;
    try {
      await runCli(env, ['replay-dead-letters', '--since', '1970-01-01', '--key', UNDECODABLE_KEY]);
    } catch (err) {
      exitCode = (err as { status: number }).status;
    }
    expect(exitCode).toBe(3);
  });
});
