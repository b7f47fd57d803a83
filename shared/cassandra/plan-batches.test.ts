import { describe, expect, it } from 'vitest';
import { MAX_BATCH_BYTES, MAX_BATCH_ROWS, planBatches, rowBytes, type SizedRow } from './plan-batches.js';

const row = (group: string, bytes: number, owner = 0): SizedRow<number> => ({
  group,
  bytes,
  owner,
  statement: { query: 'INSERT', params: [] },
});

describe('planBatches', () => {
  it('When seventeen 1 MB rows share a partition, then no batch holds more than MAX_BATCH_BYTES unless it is one row', () => {
    const batches = planBatches(Array.from({ length: 17 }, (_, i) => row('p', 1_000_000, i)));
    expect(batches).toHaveLength(17);
    for (const b of batches) expect(b).toHaveLength(1);
  });

  it('When small rows of two partitions interleave, then each batch is one partition, in order, within both limits', () => {
    const rows = Array.from({ length: 300 }, (_, i) => row(i % 2 ? 'a' : 'b', 3000, i));
    const batches = planBatches(rows);
    for (const b of batches) {
      expect(new Set(b.map((r) => r.group)).size).toBe(1);
      expect(b.length).toBeLessThanOrEqual(MAX_BATCH_ROWS);
      expect(b.reduce((s, r) => s + r.bytes, 0)).toBeLessThanOrEqual(MAX_BATCH_BYTES);
      expect(b.map((r) => r.owner)).toEqual([...b.map((r) => r.owner)].sort((x, y) => x - y));
    }
    expect(batches.flat()).toHaveLength(300);
  });

  it('When rows are tiny, then the row limit still applies', () => {
    expect(planBatches(Array.from({ length: 120 }, () => row('p', 10))).map((b) => b.length)).toEqual([50, 50, 20]);
  });
});

describe('rowBytes', () => {
  it('When a row holds a string, then its UTF-8 bytes count, plus an overhead', () => {
    const small = rowBytes({ query: 'q', params: ['a', 1, null] });
    expect(rowBytes({ query: 'q', params: ['é'.repeat(1000), 1, null] })).toBe(small - 1 + 2000);
  });
});
