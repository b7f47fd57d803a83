import type { Admin } from 'kafkajs';
import { groupName, topicName } from '../../shared/events/index.js';

export interface ResetPlan {
  group: string;
  topic: string;
  partitions: { partition: number; offset: string }[];
}

/**
 * The spec's reset_pipeline: rewind the pipeline's consumer groups to the first record written at or after the
 * date (UTC midnight). The converter then re-converts from there into idempotent upserts, so the timeseries ends
 * identical. The groups must have no running member (stop `itinera intake` first); Kafka refuses otherwise.
 */
export async function planReset(admin: Admin, topicPrefix: string, date: string): Promise<ResetPlan[]> {
  const ts = Date.parse(`${date}T00:00:00Z`);
  const plans: ResetPlan[] = [];
  for (const [group, topic] of [[groupName(topicPrefix, 'converter'), topicName(topicPrefix, 'usercache')]] as const) {
    const offsets = await admin.fetchTopicOffsetsByTimestamp(topic, ts);
    plans.push({ group, topic, partitions: offsets.map(({ partition, offset }) => ({ partition, offset })) });
  }
  return plans;
}

export async function applyReset(admin: Admin, plans: readonly ResetPlan[]): Promise<void> {
  for (const plan of plans)
    await admin.setOffsets({ groupId: plan.group, topic: plan.topic, partitions: [...plan.partitions] });
}
