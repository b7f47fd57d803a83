import { describe, expect, it } from 'vitest';
import { batchByUser, type UserBatch } from './batch-by-user.js';
import type { EmissionEntry } from './emission-entry.js';

const A = 'aaaaaaaa-0000-4000-8000-000000000001';
const B = 'bbbbbbbb-0000-4000-8000-000000000002';

function entry(userUuid: string, n: number): EmissionEntry {
  return { userUuid, metadata: { key: 'background/location', n }, data: {}, file: 'f.json' };
}

async function* from(entries: EmissionEntry[]): AsyncGenerator<EmissionEntry> {
  yield* entries;
}

async function collect(batches: AsyncIterable<UserBatch>): Promise<Array<[string, number[]]>> {
  const out: Array<[string, number[]]> = [];
  for await (const b of batches) out.push([b.userUuid, b.entries.map((e) => e.metadata['n'] as number)]);
  return out;
}

describe('batchByUser', () => {
  it('When users come grouped, then each run of a user is one batch, in order', async () => {
    const entries = [entry(A, 1), entry(A, 2), entry(B, 3), entry(B, 4), entry(B, 5)];
    expect(await collect(batchByUser(from(entries)))).toEqual([
      [A, [1, 2]],
      [B, [3, 4, 5]],
    ]);
  });

  it('When a run is longer than maxBatch, then it is cut into full batches and a remainder', async () => {
    const entries = [1, 2, 3, 4, 5, 6, 7].map((n) => entry(A, n));
    expect(await collect(batchByUser(from(entries), 3))).toEqual([
      [A, [1, 2, 3]],
      [A, [4, 5, 6]],
      [A, [7]],
    ]);
  });

  it('When a user comes back after another, then its later entries start a new batch', async () => {
    const entries = [entry(A, 1), entry(B, 2), entry(A, 3)];
    expect(await collect(batchByUser(from(entries)))).toEqual([
      [A, [1]],
      [B, [2]],
      [A, [3]],
    ]);
  });

  it('When a batch fills, then it is handed over before the next entry is read', async () => {
    let read = 0;
    async function* counting(): AsyncGenerator<EmissionEntry> {
      for (let n = 1; n <= 4; n++) {
        read = n;
        yield entry(A, n);
      }
    }
    const batches = batchByUser(counting(), 2);
    const first = await batches.next();
    expect(first.value?.entries).toHaveLength(2);
    expect(read).toBe(2);
    await batches.return(undefined);
  });

  it('When there are no entries, then there are no batches', async () => {
    expect(await collect(batchByUser(from([])))).toEqual([]);
  });

  it('When maxBatch is not a positive integer, then it is refused', async () => {
    await expect(collect(batchByUser(from([entry(A, 1)]), 0))).rejects.toThrow(RangeError);
    await expect(collect(batchByUser(from([entry(A, 1)]), 1.5))).rejects.toThrow(RangeError);
  });
});
