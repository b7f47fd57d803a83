import type { Admin } from 'kafkajs';

export interface GroupProgress {
  /** Per partition: the group's committed offset (-1 when none yet) and the partition's high-water mark. */
  partitions: { partition: number; committed: number; high: number }[];
  /** Records the group has committed past, summed over partitions. */
  committed: number;
  /** Records in the topic so far (sum of high-water marks). */
  high: number;
}

/** How far a consumer group has come through a topic: what "caught up" and lag checks are made of. */
export async function groupProgress(admin: Admin, groupId: string, topic: string): Promise<GroupProgress> {
  const [highs, [offsets]] = await Promise.all([
    admin.fetchTopicOffsets(topic),
    admin.fetchOffsets({ groupId, topics: [topic] }),
  ]);
  const committedBy = new Map((offsets?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
  const partitions = highs.map((p) => ({
    partition: p.partition,
    committed: committedBy.get(p.partition) ?? -1,
    high: Number(p.high),
  }));
  return {
    partitions,
    committed: partitions.reduce((sum, p) => sum + Math.max(0, p.committed), 0),
    high: partitions.reduce((sum, p) => sum + p.high, 0),
  };
}
