import { getDefaultHighWaterMark } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { csvStream, neutralised } from './csv-stream.js';

describe('csvStream', () => {
  it('pulls from its source only as fast as it is read', async () => {
    let produced = 0;
    async function* many() {
      for (let i = 0; i < 100_000; i++) {
        produced++;
        yield i;
      }
    }
    const stream = csvStream(['n', 'text'], many(), (n) => [{ n, text: 'x'.repeat(100) }]);
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    await new Promise((resolve) => setTimeout(resolve, 50));
    // What the stream's buffers hold (Node's default high-water mark: 16 KiB before Node 22, 64 KiB since) and no
    // more: a row is over 100 bytes, so four buffers' worth is a bound two buffers' fill stays under, far below the
    // 100,000 rows an eager pull would reach.
    const rowsPerBuffer = getDefaultHighWaterMark(false) / 100;
    expect(produced).toBeLessThan(4 * rowsPerBuffer);
    stream.destroy();
  });

  it('closes its source when the reader goes away', async () => {
    let closed = false;
    async function* endless() {
      try {
        for (let i = 0; ; i++) yield i;
      } finally {
        closed = true;
      }
    }
    const stream = csvStream(['n'], endless(), (n) => [{ n }]);
    for await (const _chunk of stream) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(true);
  });

  it('fails the stream when the source fails, instead of ending it as if complete', async () => {
    async function* failing() {
      yield 1;
      throw new Error('Cassandra went away');
    }
    const stream = csvStream(['n'], failing(), (n) => [{ n }]);
    await expect(
      (async () => {
        for await (const _chunk of stream) {
          // read everything
        }
      })(),
    ).rejects.toThrow('Cassandra went away');
  });
});

describe('neutralised', () => {
  it('keeps a spreadsheet from running a text cell as a formula, and leaves values alone', async () => {
    const rows = [
      { label: '=HYPERLINK("http://evil.example","x")', n: -3 },
      { label: '+1+1', n: 0 },
      { label: '-2+3', n: 1.5 },
      { label: '@SUM(A1)', n: 2 },
      { label: '\tcmd', n: 3 },
      { label: '\rcmd', n: 4 },
      { label: 'walk = fun', n: 5 },
    ];
    let text = '';
    for await (const chunk of csvStream(
      ['label', 'n'],
      (async function* () {
        yield* rows;
      })(),
      (r) => [r],
    ))
      text += String(chunk);
    // Each line after the header: the label cell (quoted when it holds a quote, a comma or a line break), then n.
    const lines = text.split('\n').slice(1, -1);
    const firstCharOfLabel = lines.map((line) => line.replace(/^"/, '').charAt(0));
    expect(firstCharOfLabel).toEqual(["'", "'", "'", "'", "'", "'", 'w']);
    expect(lines.map((line) => line.slice(line.lastIndexOf(',') + 1))).toEqual(['-3', '0', '1.5', '2', '3', '4', '5']);
    expect(neutralised({ a: 'fine', b: 7 })).toEqual({ a: 'fine', b: 7 });
  });
});
