import { describe, expect, it } from 'vitest';
import { reconcileTopicConfig, topicPlan } from './topics.js';

const planned = { 'min.insync.replicas': '2', 'max.message.bytes': '4194304' };
const withRetention = { ...planned, 'retention.ms': '2592000000' };

describe('reconcileTopicConfig', () => {
  it('When an existing topic lacks the durability settings or has another retention, then the plan is merged into its own config, which is kept whole', () => {
    expect(reconcileTopicConfig({ 'retention.ms': '3600000', 'segment.bytes': '1048576' }, withRetention, 3)).toEqual({
      'retention.ms': '2592000000',
      'segment.bytes': '1048576',
      'min.insync.replicas': '2',
      'max.message.bytes': '4194304',
    });
  });

  it('When the topic already meets the plan, then nothing is altered', () => {
    expect(
      reconcileTopicConfig(
        { 'min.insync.replicas': '2', 'max.message.bytes': '4194304', 'retention.ms': '2592000000' },
        withRetention,
        3,
      ),
    ).toBe(undefined);
  });

  it('When an operator chose stricter values, then they are kept', () => {
    expect(
      reconcileTopicConfig(
        { 'min.insync.replicas': '3', 'max.message.bytes': '8388608', 'retention.ms': '2592000000' },
        planned,
        3,
      ),
    ).toBe(undefined);
  });

  it('When min.insync.replicas is below the plan or above what the topic’s replication can meet, then it is set for that replication', () => {
    expect(reconcileTopicConfig({ 'min.insync.replicas': '1', 'max.message.bytes': '4194304' }, planned, 3)).toEqual({
      'min.insync.replicas': '2',
      'max.message.bytes': '4194304',
    });
    // Replication 1: 2 replicas in sync can never be met, every acks=all write would fail.
    expect(reconcileTopicConfig({ 'min.insync.replicas': '2', 'max.message.bytes': '4194304' }, planned, 1)).toEqual({
      'min.insync.replicas': '1',
      'max.message.bytes': '4194304',
    });
  });

  it('When max.message.bytes is below the plan, then it is raised; a plan without one leaves it alone', () => {
    expect(reconcileTopicConfig({ 'min.insync.replicas': '1', 'max.message.bytes': '1048576' }, planned, 1)).toEqual({
      'min.insync.replicas': '1',
      'max.message.bytes': '4194304',
    });
    expect(reconcileTopicConfig({ 'min.insync.replicas': '1' }, { 'cleanup.policy': 'compact' }, 1)).toBe(undefined);
  });
});

describe('topic retention', () => {
  const config = (plan: ReturnType<typeof topicPlan>, suffix: string) =>
    Object.fromEntries(plan.find((t) => t.topic === `p.${suffix}`)!.configEntries.map((e) => [e.name, e.value]));

  it('When retention is configured, then the raw topics keep records that many days and roll a segment a day', () => {
    const plan = topicPlan('p.', 4, 3, { rawTopicDays: 7, deadLetterTopicDays: 14 });
    for (const raw of ['usercache', 'timeseries'])
      expect(config(plan, raw)).toMatchObject({ 'retention.ms': String(7 * 86_400_000), 'segment.ms': '86400000' });
    expect(config(plan, 'error-timeseries')).toMatchObject({ 'retention.ms': String(14 * 86_400_000) });
  });

  it('When an account is deleted, then its tombstones on the compacted topic are compacted within a week', () => {
    expect(config(topicPlan('p.', 4, 3), 'diary')).toMatchObject({
      'cleanup.policy': 'compact',
      'max.compaction.lag.ms': String(7 * 86_400_000),
    });
  });
});
