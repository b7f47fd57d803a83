import { describe, expect, it } from 'vitest';
import { reconcileTopicConfig } from './topics.js';

const planned = { 'min.insync.replicas': '2', 'retention.ms': '2592000000', 'max.message.bytes': '4194304' };

describe('reconcileTopicConfig', () => {
  it('When an existing topic lacks the durability settings, then they are merged into its own config, which is kept whole', () => {
    expect(reconcileTopicConfig({ 'retention.ms': '3600000', 'segment.bytes': '1048576' }, planned, 3)).toEqual({
      'retention.ms': '3600000',
      'segment.bytes': '1048576',
      'min.insync.replicas': '2',
      'max.message.bytes': '4194304',
    });
  });

  it('When the topic already meets the plan, then nothing is altered', () => {
    expect(reconcileTopicConfig({ 'min.insync.replicas': '2', 'max.message.bytes': '4194304' }, planned, 3)).toBe(
      undefined,
    );
  });

  it('When an operator chose stricter values, then they are kept', () => {
    expect(reconcileTopicConfig({ 'min.insync.replicas': '3', 'max.message.bytes': '8388608' }, planned, 3)).toBe(
      undefined,
    );
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
