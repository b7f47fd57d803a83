import { describe, expect, it } from 'vitest';
import { requestChunks } from './request-chunks.js';

const records = (count: number, bytes: number) =>
  Array.from({ length: count }, (_, i) => ({ key: 'user', value: Buffer.alloc(bytes, i % 256) }));

describe('requestChunks', () => {
  it('When 2,500 small records are cut, then they come in order in requests of at most 1,000 records', () => {
    const sent = records(2500, 100);

    const requests = [...requestChunks(sent)];

    expect(requests.map((r) => r.length)).toEqual([1000, 1000, 500]);
    expect(requests.flat()).toEqual(sent);
  });

  it('When records are large, then a request holds at most 1 MiB of values, and a larger record goes alone', () => {
    const requests = [...requestChunks([...records(5, 300 * 1024), ...records(1, 2 * 1024 * 1024)])];

    expect(requests.map((r) => r.length)).toEqual([3, 2, 1]);
  });

  it('When the records are a generator, then each is pulled only when its request is cut', () => {
    let pulled = 0;
    const lazy = (function* () {
      for (const r of records(2500, 10)) {
        pulled += 1;
        yield r;
      }
    })();
    const requests = requestChunks(lazy);

    requests.next();
    // The first request is cut when the 1,001st record arrives, and no further.
    expect(pulled).toBe(1001);
  });
});
