import { describe, expect, it } from 'vitest';
import { forEachBounded } from './for-each-bounded.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('forEachBounded', () => {
  it('When items are many, then every one is worked and never more than the bound at once', async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    await forEachBounded(
      Array.from({ length: 20 }, (_, i) => i),
      3,
      async (i) => {
        most = Math.max(most, ++running);
        await tick();
        running--;
        done.push(i);
      },
    );
    expect(most).toBe(3);
    expect(done.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('When one item fails, then no further item starts, those running are told and settle, and then the failure is thrown', async () => {
    const started: number[] = [];
    const settled: number[] = [];
    const failure = new Error('outage');
    let abortedSeen = false;
    await expect(
      forEachBounded([0, 1, 2, 3, 4, 5], 2, async (i, signal) => {
        started.push(i);
        if (i === 0) throw failure;
        await tick();
        abortedSeen ||= signal.aborted;
        settled.push(i);
      }),
    ).rejects.toBe(failure);
    expect(started).toEqual([0, 1]);
    expect(settled).toEqual([1]);
    expect(abortedSeen).toBe(true);
  });

  it('When there are no items, then it resolves at once', async () => {
    await expect(forEachBounded([], 4, async () => undefined)).resolves.toBeUndefined();
  });
});
