/**
 * What both cluster suites wait for and assert: replicas in sync, a Cassandra node back in the driver's view, the
 * calm reference build, every entry stored exactly once, every slice's trips equal to the calm build.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Admin } from 'kafkajs';
import { expect } from 'vitest';
import type { ClusterNode } from '../../deploy/local/cluster.js';
import { groupName, topicName } from '../../shared/events/index.js';
import { groupProgress } from '../../shared/kafka/index.js';
import { createTimeseriesReader } from '../../shared/timeseries/index.js';
import type { RunningGateway } from '../helpers/gateway.js';
import { DAY_OF } from '../helpers/real-days.js';
import { waitFor, type TestEnv } from '../helpers/test-env.js';
import { timeline, tripShape } from '../helpers/trips.js';
import { whereEntriesWent } from './where-entries-went.js';
import { newTally, pushSlice, sliceName, SLICES, type Gateways, type PushedUser } from './phones.js';

export const log = (line: string) =>
  process.stdout.write(`[cluster] ${new Date().toISOString().slice(11, 19)} ${line}\n`);

/** Every partition of the test's topics and of the offsets topic has all its replicas in sync again. */
export async function replicasInSync(env: TestEnv, admin: Admin): Promise<void> {
  const topics = [
    ...(['usercache', 'timeseries', 'errorTimeseries', 'diary'] as const).map((id) =>
      topicName(env.config.kafka.topicPrefix, id),
    ),
    '__consumer_offsets',
  ];
  await waitFor(
    async () => {
      const { topics: meta } = await admin.fetchTopicMetadata({ topics });
      return meta.every((t) => t.partitions.every((p) => p.isr.length === p.replicas.length)) ? true : undefined;
    },
    180_000,
    'every partition to be fully in sync',
  );
}

/** The driver of the test environment sees the node up again (it reconnects once gossip says so). */
export async function cassandraNodeBack(env: TestEnv, node: ClusterNode): Promise<void> {
  await waitFor(
    async () =>
      env.cassandra
        .getState()
        .getConnectedHosts()
        .some((h) => h.address.startsWith(`${node.host}:`))
        ? true
        : undefined,
    180_000,
    `the driver to reconnect to ${node.name}`,
  );
}

/** Provisioning as the cluster needs it: three replicas, two in sync before an acknowledgement, RF 3. */
export async function expectReplicatedProvisioning(env: TestEnv, admin: Admin): Promise<void> {
  const usercache = topicName(env.config.kafka.topicPrefix, 'usercache');
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: 2, name: usercache, configNames: ['min.insync.replicas'] }],
  });
  expect(resources[0]?.configEntries[0]?.configValue).toBe('2');
  const { topics: meta } = await admin.fetchTopicMetadata({ topics: [usercache] });
  expect(meta[0]?.partitions.every((p) => p.replicas.length === 3)).toBe(true);
  const ks = await env.cassandra.execute('SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = ?', [
    env.config.cassandra.keyspace,
  ]);
  expect(ks.rows[0]?.['replication']).toMatchObject({ class: expect.stringContaining('NetworkTopologyStrategy') });
  expect(ks.rows[0]?.['replication']['datacenter1']).toBe('3');
}

/** Every slice pushed once under a calm user before any fault; their trips, read at the end, are the reference. */
export async function pushCalmSlices(gateways: Gateways): Promise<PushedUser[]> {
  const tally = newTally();
  const users = await Promise.all(
    SLICES.map((slice, i) =>
      pushSlice(gateways, i, `calm-${sliceName(slice)}@cluster.itinera.org`, slice, tally, { chunk: 500 }),
    ),
  );
  expect(tally.dishonest).toEqual([]);
  return users;
}

function sorted(counts: Record<string, number>): [string, number][] {
  return Object.entries(counts).sort(([a], [b]) => a.localeCompare(b));
}

/**
 * Waits until every user's timeseries holds exactly its slice's entries by key; throws with the first mismatches,
 * where the mismatched users' entries are in the usercache topic, and `diagnose`'s text (a service's output).
 */
export async function expectEveryEntryOnce(
  { env, admin }: { env: TestEnv; admin: Admin },
  users: readonly PushedUser[],
  diagnose: () => string = () => '',
) {
  const reader = createTimeseriesReader(env.cql);
  const mismatches: string[] = [];
  const mismatched: PushedUser[] = [];
  const usercache = topicName(env.config.kafka.topicPrefix, 'usercache');
  const converters = groupName(env.config.kafka.topicPrefix, 'converter');
  try {
    // First the converters' committed offsets, from Kafka: counting every user's rows in a loop while they drain
    // took the cores the Cassandra nodes needed for the converters' writes, which then timed out, and the group
    // stopped making progress.
    await waitFor(
      async () => {
        const progress = await groupProgress(admin, converters, usercache);
        if (progress.partitions.every((p) => Math.max(0, p.committed) >= p.high)) return true;
        await sleep(2_000);
        return undefined;
      },
      900_000,
      'the converters to have taken every pushed entry',
    );
    // Then the rows, a pass every few seconds; a pass ends at the fifth user still short (enough to diagnose).
    await waitFor(
      async () => {
        mismatches.length = 0;
        mismatched.length = 0;
        for (const u of users) {
          const stored = JSON.stringify(sorted(await reader.countByKey(u.uuid)));
          if (stored === JSON.stringify(sorted(u.expected))) continue;
          mismatches.push(`${u.token}: stored ${stored} expected ${JSON.stringify(sorted(u.expected))}`);
          mismatched.push(u);
          if (mismatches.length >= 5) break;
        }
        if (mismatches.length === 0) return true;
        await sleep(5_000);
        return undefined;
      },
      300_000,
      'every entry in the timeseries',
    );
  } catch (err) {
    const where = await whereEntriesWent(env, admin, mismatched.slice(0, 5)).catch((e) => `(${String(e)})`);
    throw new Error(`${String(err)}\n${mismatches.slice(0, 5).join('\n')}\n${where}\n${diagnose()}`);
  }
}

/** Trips without their ids (they differ between users by design), as the crash tests compare them. */
const withoutIds = (trips: any[]) => tripShape(trips).map(({ id: _id, ...rest }) => rest);

/**
 * Every user's trips equal the calm user's of the same slice, none doubled; the calm builds are read first, once
 * they have not changed for 10 s (all were pushed before the first fault, so they are long built by then). Returns how many trips were compared.
 */
export async function expectTripsAsCalm(
  gateways: Gateways,
  calm: readonly PushedUser[],
  users: readonly PushedUser[],
): Promise<number> {
  const asGateway = (phone: number) =>
    ({ post: (path: string, body: unknown) => gateways.post(phone, path, body) }) as unknown as RunningGateway;
  const reference = new Map<string, string>();
  await Promise.all(
    calm.map(async (c, i) => {
      let last = '';
      let since = Date.now();
      const shape = await waitFor(
        async () => {
          const now = JSON.stringify(withoutIds(await timeline(asGateway(i), c.token, DAY_OF[c.slice.day])));
          if (now !== last) [last, since] = [now, Date.now()];
          return Date.now() - since >= 10_000 ? now : undefined;
        },
        300_000,
        `${c.token}'s trips to settle`,
      );
      reference.set(sliceName(c.slice), shape);
    }),
  );
  // An empty build equals an empty build: the reference must hold trips, or equality would prove nothing. Most
  // quarter-days hold a trip (the night's quarter may not).
  const withTrips = [...reference.values()].filter((shape) => shape !== '[]').length;
  expect(withTrips, 'calm slices with trips').toBeGreaterThanOrEqual(Math.ceil(reference.size / 2));
  let compared = 0;
  for (const [i, u] of users.entries()) {
    const trips = await waitFor(
      async () => {
        const t = await timeline(asGateway(i), u.token, DAY_OF[u.slice.day]);
        return JSON.stringify(withoutIds(t)) === reference.get(sliceName(u.slice)) ? t : undefined;
      },
      300_000,
      `${u.token}'s trips of ${sliceName(u.slice)} to equal the calm build`,
    );
    expect(new Set(trips.map((t: any) => t.id)).size).toBe(trips.length);
    compared += trips.length;
  }
  expect(compared).toBeGreaterThan(0);
  return compared;
}
