/**
 * When a user's timeseries misses entries at the end of a cluster suite, where they are: still in the usercache
 * topic (then a converter skipped them: compare their offsets with the group's committed offset) or not there at all
 * (then the brokers or the gateway's producer lost an acknowledged record). Written to the failure message, because
 * the rig drops its topics and keyspace once the suite ends.
 */
import type { Admin } from 'kafkajs';
import { groupName, topicName } from '../../shared/events/index.js';
import { groupProgress } from '../../shared/kafka/index.js';
import type { TestEnv } from '../helpers/test-env.js';

interface Found {
  records: number;
  byPartition: Map<number, { first: string; last: string; count: number }>;
}

export async function whereEntriesWent(
  env: TestEnv,
  admin: Admin,
  users: readonly { token: string; uuid: string }[],
): Promise<string> {
  const topic = topicName(env.config.kafka.topicPrefix, 'usercache');
  const group = groupName(env.config.kafka.topicPrefix, 'converter');
  const ends = await admin.fetchTopicOffsets(topic);
  const progress = await groupProgress(admin, group, topic);
  const found = new Map<string, Found>(users.map((u) => [u.uuid, { records: 0, byPartition: new Map() }]));
  const left = new Set(ends.filter((p) => p.high !== p.low).map((p) => p.partition));
  const highOf = new Map(ends.map((p) => [p.partition, BigInt(p.high)]));

  const consumer = env.kafka.consumer({ groupId: `diagnose-${Date.now()}` });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('reading the usercache topic took over 5 minutes')), 300_000);
      if (left.size === 0) {
        clearTimeout(timer);
        return resolve();
      }
      consumer
        .run({
          autoCommit: false,
          eachBatch: async ({ batch }) => {
            for (const m of batch.messages) {
              const f = found.get(m.key?.toString() ?? '');
              if (f) {
                f.records += 1;
                const p = f.byPartition.get(batch.partition) ?? { first: m.offset, last: m.offset, count: 0 };
                p.last = m.offset;
                p.count += 1;
                f.byPartition.set(batch.partition, p);
              }
            }
            const last = batch.messages.at(-1);
            if (last && BigInt(last.offset) + 1n >= highOf.get(batch.partition)!) left.delete(batch.partition);
            if (left.size === 0) {
              clearTimeout(timer);
              resolve();
            }
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }

  const lines = [`where the missing entries are (topic ${topic}, group ${group}):`];
  lines.push(
    `  partitions (high watermark / converter committed): ${progress.partitions
      .map((p) => `${p.partition}: ${p.high}/${p.committed}`)
      .join(', ')}`,
  );
  for (const u of users) {
    const f = found.get(u.uuid)!;
    const parts = [...f.byPartition].map(
      ([p, o]) => `partition ${p}: ${o.count} records, offsets ${o.first}..${o.last}`,
    );
    lines.push(`  ${u.token}: ${f.records} records in the usercache topic (${parts.join('; ') || 'none'})`);
  }
  return lines.join('\n');
}
