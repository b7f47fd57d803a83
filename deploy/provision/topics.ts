import type { Admin } from 'kafkajs';
import { topicName, type TopicId } from '../../shared/events/index.js';

/**
 * Partition count of the per-user topics: 16 by default (conf/storage/servers.conf).
 * A partition is the unit of parallelism of a consumer group, and the count cannot shrink, while growing it
 * moves users to other partitions (breaking per-user order while old data drains). 16 lets the converter and
 * trip builder grow to 16 workers across machines; on one node each partition costs a few file handles.
 */
export function topicPlan(prefix: string, partitions: number) {
  const week = 7 * 24 * 3600 * 1000;
  const plan: Record<TopicId, { partitions: number; config: Record<string, string> }> = {
    // Kept 30 days so reset-pipeline can rewind the converter to any date in the last month.
    usercache: {
      partitions,
      config: { 'retention.ms': String(30 * 24 * 3600 * 1000), 'max.message.bytes': '4194304' },
    },
    timeseries: {
      partitions,
      config: { 'retention.ms': String(30 * 24 * 3600 * 1000), 'max.message.bytes': '4194304' },
    },
    // Dead letters must outlive an operator's holiday; they are also in Cassandra's error_timeseries table.
    errorTimeseries: { partitions: 4, config: { 'retention.ms': String(8 * week) } },
    // Latest document per (user, key) only.
    diary: { partitions, config: { 'cleanup.policy': 'compact', 'max.message.bytes': '16777216' } },
  };
  return Object.entries(plan).map(([id, spec]) => ({
    topic: topicName(prefix, id as TopicId),
    numPartitions: spec.partitions,
    replicationFactor: -1,
    configEntries: Object.entries(spec.config).map(([name, value]) => ({ name, value })),
  }));
}

/** Creates the topics that are missing. Existing topics are left as they are. */
export async function ensureTopics(admin: Admin, prefix: string, partitions: number): Promise<number> {
  const existing = new Set(await admin.listTopics());
  const missing = topicPlan(prefix, partitions).filter((t) => !existing.has(t.topic));
  if (missing.length > 0) await admin.createTopics({ topics: missing, waitForLeaders: true });
  return topicPlan(prefix, partitions).length;
}
