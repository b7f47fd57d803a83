import { describe, expect, it } from 'vitest';
import { createAnswerCache } from './answer-cache.js';

function clock(start = 1_000_000) {
  let ms = start;
  return { now: () => ms, advance: (by: number) => (ms += by) };
}

describe('the public answers’ cache', () => {
  it('When asked again within the TTL, then the answer is not computed again, and it expires TTL after it was made', async () => {
    const time = clock();
    const cache = createAnswerCache({ ttlMs: 300_000, now: time.now });
    let computed = 0;
    const compute = async () => `{"n":${(computed += 1)}}`;
    const first = await cache.get('ride', '1', compute);
    expect(first.body.toString()).toBe('{"n":1}');
    expect(first.expiresAtMs).toBe(1_300_000);
    expect(first.etag).toMatch(/^"[\w-]+"$/);
    time.advance(299_999);
    expect((await cache.get('ride', '1', compute)).body.toString()).toBe('{"n":1}');
    time.advance(1);
    const again = await cache.get('ride', '1', compute);
    expect(again.body.toString()).toBe('{"n":2}');
    expect(again.etag).not.toBe(first.etag);
  });

  it('When callers arrive while the answer is computed, then they share that one computation', async () => {
    const cache = createAnswerCache({ ttlMs: 1000 });
    let computed = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const compute = async () => {
      computed += 1;
      await gate;
      return 'x';
    };
    const waiting = [cache.get('ride', '1', compute), cache.get('ride', '1', compute), cache.get('ride', '1', compute)];
    release();
    expect((await Promise.all(waiting)).map((a) => a.body.toString())).toEqual(['x', 'x', 'x']);
    expect(computed).toBe(1);
  });

  it('When the variant changes, then the answer is computed again at once', async () => {
    const cache = createAnswerCache({ ttlMs: 300_000 });
    await cache.get('ride', '1', async () => 'old');
    expect((await cache.get('ride', '2', async () => 'new')).body.toString()).toBe('new');
  });

  it('When a computation fails, then the failure is not kept and the next caller computes again', async () => {
    const cache = createAnswerCache({ ttlMs: 300_000 });
    await expect(
      cache.get('ride', '1', () => Promise.reject(new RangeError('Cassandra did not answer'))),
    ).rejects.toThrow('Cassandra did not answer');
    expect((await cache.get('ride', '1', async () => 'later')).body.toString()).toBe('later');
  });

  it('When more keys than the bound are asked, then the oldest is dropped', async () => {
    const cache = createAnswerCache({ ttlMs: 300_000, maxEntries: 2 });
    let computed = 0;
    const compute = async () => String((computed += 1));
    for (const key of ['a', 'b', 'c']) await cache.get(key, '1', compute);
    await cache.get('c', '1', compute);
    await cache.get('b', '1', compute);
    expect(computed).toBe(3);
    await cache.get('a', '1', compute);
    expect(computed).toBe(4);
  });
});
