import kafkajs, { type Admin } from 'kafkajs';
import pRetry from 'p-retry';
import { StackError } from '../../shared/errors/index.js';
import { topicName, type TopicId } from '../../shared/events/index.js';
import type { Logger } from '../../shared/logger/index.js';

/**
 * Every producer sends with acks=all, so a write is acknowledged once min.insync.replicas replicas hold it.
 * 2 (with the README's replication 3) means an acknowledged entry survives the loss of any one broker, and
 * writes still succeed while one broker is down. It can never exceed the replication, or every write would
 * fail with NOT_ENOUGH_REPLICAS: on the single local broker (replication 1) it is 1.
 */
export function minInsyncReplicas(replication: number): number {
  return Math.max(1, Math.min(2, replication));
}

/**
 * Partition count of the per-user topics: 16 by default (conf/storage/servers.conf).
 * A partition is the unit of parallelism of a consumer group, and the count cannot shrink, while growing it
 * moves users to other partitions (breaking per-user order while old data drains). 16 lets the converter and
 * trip builder grow to 16 workers across machines; on one node each partition costs a few file handles.
 */
/** How long the topics keep what they hold (config `retention`, conf/storage/servers.conf). */
export interface TopicRetention {
  /** Days the usercache and timeseries topics keep records. @defaultValue 30 */
  rawTopicDays: number;
  /** Days the error-timeseries topic keeps dead letters. @defaultValue 56 */
  deadLetterTopicDays: number;
}

const DAY_MS = 24 * 3600 * 1000;

export function topicPlan(
  prefix: string,
  partitions: number,
  replication: number,
  { rawTopicDays, deadLetterTopicDays }: TopicRetention = { rawTopicDays: 30, deadLetterTopicDays: 56 },
) {
  const durability = { 'min.insync.replicas': String(minInsyncReplicas(replication)) };
  // Kafka deletes whole segments once their newest record is past retention, so a segment rolled daily bounds how
  // long anything (a deleted account's entries above all) outlives the retention: one day, not segment.ms' week.
  const retained = (days: number) => ({ 'retention.ms': String(days * DAY_MS), 'segment.ms': String(DAY_MS) });
  const plan: Record<TopicId, { partitions: number; config: Record<string, string> }> = {
    // Kept 30 days by default so reset-pipeline can rewind the converter to any date in the last month.
    usercache: {
      partitions,
      config: { ...durability, ...retained(rawTopicDays), 'max.message.bytes': '4194304' },
    },
    // Notices of stored entries, a hundred bytes each; a person's input's notice (and every record written before
    // notices) carries the converted entry, capped below this (shared/events/entry-limits.ts).
    timeseries: {
      partitions,
      config: { ...durability, ...retained(rawTopicDays), 'max.message.bytes': '4194304' },
    },
    // Dead letters must outlive an operator's holiday; they are also in Cassandra's error table (shared/timeseries).
    // One carries a whole refused usercache record (up to 4 MiB, base64 when undecodable), so the broker's 1 MB
    // default would refuse exactly the letters of the largest entries.
    errorTimeseries: {
      partitions: 4,
      config: { ...durability, ...retained(deadLetterTopicDays), 'max.message.bytes': '8388608' },
    },
    // Latest document per (user, key) only. A deleted account's tombstones must reach compaction within a week
    // (max.compaction.lag.ms), however little else is written; the tombstones themselves go a day later.
    diary: {
      partitions,
      config: {
        ...durability,
        'cleanup.policy': 'compact',
        'max.message.bytes': '16777216',
        'max.compaction.lag.ms': String(7 * DAY_MS),
        'delete.retention.ms': String(DAY_MS),
      },
    },
  };
  return Object.entries(plan).map(([id, spec]) => ({
    topic: topicName(prefix, id as TopicId),
    numPartitions: spec.partitions,
    replicationFactor: -1,
    configEntries: Object.entries(spec.config).map(([name, value]) => ({ name, value })),
  }));
}

/**
 * The replication new topics get: they are created with the brokers' default.replication.factor (replicationFactor
 * -1), read here so min.insync.replicas can be set to match it.
 */
export async function defaultReplication(admin: Admin): Promise<number> {
  const { brokers } = await admin.describeCluster();
  const broker = brokers[0];
  if (!broker) return 1;
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [
      {
        type: kafkajs.ConfigResourceTypes.BROKER,
        name: String(broker.nodeId),
        configNames: ['default.replication.factor'],
      },
    ],
  });
  const value = Number(
    resources[0]?.configEntries.find((e) => e.configName === 'default.replication.factor')?.configValue,
  );
  return Number.isInteger(value) && value > 0 ? Math.min(value, brokers.length) : 1;
}

/**
 * The dynamic config an existing topic must get so it meets the plan, or undefined when it already does.
 * `current` is the topic's whole dynamic config (entries set on the topic, not defaults), since Kafka's
 * AlterConfigs replaces all of it: every entry is kept, only the settings the pipeline depends on are merged in.
 * Those are floors, not exact values, so an operator's stricter choice survives provisioning:
 * - min.insync.replicas: at least the planned value for the topic's own replication (it may have been created with
 *   another factor than today's default), and never above that replication, where every write would fail;
 * - max.message.bytes: at least the plan's (the gateway and converter size their caps on it); a larger value only
 *   admits more, so it is kept.
 * - the retention settings (RETENTION_SETTINGS): exactly the plan's, which come from the `retention` configuration,
 *   so changing it there and restarting is how an operator changes how long Kafka keeps data.
 * cleanup.policy and anything else set on the topic are left as they are.
 */
/** Settings provisioning keeps equal to the configuration (see TopicRetention). */
const RETENTION_SETTINGS = ['retention.ms', 'segment.ms', 'max.compaction.lag.ms', 'delete.retention.ms'] as const;

export function reconcileTopicConfig(
  current: Readonly<Record<string, string>>,
  planned: Readonly<Record<string, string>>,
  replication: number,
): Record<string, string> | undefined {
  const next = { ...current };
  const minIsr = minInsyncReplicas(replication);
  const isr = Number(current['min.insync.replicas']);
  if (!(Number.isInteger(isr) && isr >= minIsr && isr <= Math.max(replication, 1)))
    next['min.insync.replicas'] = String(minIsr);
  const plannedBytes = planned['max.message.bytes'];
  if (plannedBytes !== undefined) {
    const bytes = Number(current['max.message.bytes']);
    if (!(Number.isInteger(bytes) && bytes >= Number(plannedBytes))) next['max.message.bytes'] = plannedBytes;
  }
  for (const name of RETENTION_SETTINGS) {
    const value = planned[name];
    if (value !== undefined) next[name] = value;
  }
  const changed = Object.keys(next).some((name) => next[name] !== current[name]);
  return changed ? next : undefined;
}

/** Per topic: its dynamic config (see reconcileTopicConfig) and its replication (the fewest replicas of a partition). */
async function describeExisting(
  admin: Admin,
  topics: readonly string[],
): Promise<Map<string, { config: Record<string, string>; replication: number; complete: boolean }>> {
  const { topics: metadata } = await admin.fetchTopicMetadata({ topics: [...topics] });
  const replication = new Map(
    metadata.map((t) => [t.name, Math.min(...t.partitions.map((p) => p.replicas.length))] as const),
  );
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: topics.map((name) => ({ type: kafkajs.ConfigResourceTypes.TOPIC, name })),
  });
  const described = new Map<string, { config: Record<string, string>; replication: number; complete: boolean }>();
  for (const r of resources) {
    if (r.errorCode !== 0)
      throw new StackError(`Kafka did not describe the config of topic ${r.resourceName}`, {
        details: { topic: r.resourceName, errorCode: r.errorCode, errorMessage: r.errorMessage },
      });
    // Set on the topic itself; broker settings and defaults are what the topic falls back to, not its config.
    const own = r.configEntries.filter((e) => e.configSource === kafkajs.ConfigSource.TOPIC_CONFIG);
    described.set(r.resourceName, {
      config: Object.fromEntries(own.map((e) => [e.configName, e.configValue])),
      replication: replication.get(r.resourceName) ?? 1,
      // A sensitive value is not returned, so it could not be written back: such a topic is left alone.
      complete: own.every((e) => !e.isSensitive && typeof e.configValue === 'string'),
    });
  }
  return described;
}

/**
 * Errors a broker answers while a topic it has just created is not yet in its metadata (KRaft publishes the new
 * topic to the brokers' caches a moment after CreateTopics returns; kafkajs' own wait retries only the second).
 */
const NOT_YET_THERE = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE']);

/** Creates `topics` and waits until every one of them has a leader in the broker's metadata. */
async function createAndAwait(admin: Admin, topics: ReturnType<typeof topicPlan>): Promise<void> {
  await admin.createTopics({ topics, waitForLeaders: false });
  await pRetry(
    async () => {
      const { topics: metadata } = await admin.fetchTopicMetadata({ topics: topics.map((t) => t.topic) });
      const leaderless = metadata.filter((t) => t.partitions.length === 0 || t.partitions.some((p) => p.leader < 0));
      if (leaderless.length > 0) throw new StackError(`topics without a leader yet: ${leaderless.map((t) => t.name)}`);
    },
    {
      retries: 20,
      minTimeout: 100,
      maxTimeout: 2000,
      shouldRetry: ({ error }) =>
        error instanceof StackError || NOT_YET_THERE.has((error as { type?: string }).type ?? ''),
    },
  );
}

/**
 * Creates the topics that are missing, and brings the existing ones up to the settings the pipeline depends on
 * (reconcileTopicConfig): a deployment provisioned before min.insync.replicas was planned gets it on its next start.
 * A topic is altered only when something differs, so a provisioning run on every start changes nothing.
 */
export async function ensureTopics(
  admin: Admin,
  prefix: string,
  partitions: number,
  logger?: Pick<Logger, 'info' | 'warn'>,
  retention?: TopicRetention,
): Promise<number> {
  const existing = new Set(await admin.listTopics());
  const plan = topicPlan(prefix, partitions, await defaultReplication(admin), retention);
  const missing = plan.filter((t) => !existing.has(t.topic));
  if (missing.length > 0) await createAndAwait(admin, missing);

  const present = plan.filter((t) => existing.has(t.topic));
  if (present.length === 0) return plan.length;
  const described = await describeExisting(
    admin,
    present.map((t) => t.topic),
  );
  const alterations = [];
  for (const t of present) {
    const topic = described.get(t.topic);
    if (!topic) continue;
    const planned = Object.fromEntries(t.configEntries.map((e) => [e.name, e.value]));
    const next = reconcileTopicConfig(topic.config, planned, topic.replication);
    if (!next) continue;
    if (!topic.complete) {
      logger?.warn('Topic has a sensitive config that cannot be rewritten; its settings are left as they are', {
        topic: t.topic,
      });
      continue;
    }
    logger?.info('Updating the config of an existing topic', { topic: t.topic, from: topic.config, to: next });
    alterations.push({
      type: kafkajs.ConfigResourceTypes.TOPIC,
      name: t.topic,
      configEntries: Object.entries(next).map(([name, value]) => ({ name, value })),
    });
  }
  if (alterations.length > 0) await admin.alterConfigs({ validateOnly: false, resources: alterations });
  return plan.length;
}
