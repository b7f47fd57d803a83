import { describe, expect, it } from 'vitest';
import type { Cql } from '../../../shared/cassandra/index.js';
import { OverloadedError } from '../../../shared/errors/index.js';
import { createCassandraDiaryReader } from './cassandra-diary-reader.js';

/** A Cql whose reads each yield one row, then wait until `release()`: scans stay in flight as long as a test wants. */
function heldCql() {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let reads = 0;
  const cql = {
    async *iterate() {
      reads += 1;
      await gate;
      yield { user_id: 'u', start_ts: 10, time_zone: 'UTC', mode: 'WALKING', distance: 1, duration: 1 };
    },
  } as unknown as Cql;
  return { cql, release: () => open(), reads: () => reads };
}

const scanAll = (reader: ReturnType<typeof createCassandraDiaryReader>, visit = () => {}) =>
  reader.scanSections(null, 0, 86_399, visit, { maxSections: 100 });

describe('diary reader: aggregate scans', () => {
  it('When aggregate scans pile up, then one runs, a few wait their turn, and one more is refused as overloaded', async () => {
    const held = heldCql();
    const reader = createCassandraDiaryReader(held.cql, { aggregateScansAtOnce: 1, aggregateScansQueued: 2 });
    const admitted = [scanAll(reader), scanAll(reader), scanAll(reader)];
    await new Promise((r) => setImmediate(r));
    // One in Cassandra, two waiting.
    expect(held.reads()).toBe(1);
    await expect(scanAll(reader)).rejects.toBeInstanceOf(OverloadedError);
    held.release();
    await Promise.all(admitted);
    expect(held.reads()).toBe(3);
  });

  it("When one user's own sections are scanned, then aggregate scans in flight do not hold it back", async () => {
    const held = heldCql();
    const reader = createCassandraDiaryReader(held.cql, { aggregateScansAtOnce: 1, aggregateScansQueued: 0 });
    const aggregate = scanAll(reader);
    const own = reader.scanSections('u', 0, 86_399, () => {}, { maxSections: 100 });
    await new Promise((r) => setImmediate(r));
    expect(held.reads()).toBe(2);
    held.release();
    await Promise.all([aggregate, own]);
  });
});
