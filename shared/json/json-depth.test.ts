import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDepthScanner } from './json-depth.js';

const nested = (levels: number) => '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);
const scan = (text: string, maxDepth?: number) => createDepthScanner(maxDepth).push(Buffer.from(text));

describe('JSON depth scanner', () => {
  it('accepts exactly the maximum depth and refuses one more', () => {
    expect(scan(nested(64))).toBeNull();
    expect(scan(nested(65))).not.toBeNull();
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(scan(JSON.stringify({ s: '[[[[{{{{\\"[[[[', t: '"{{{' }), 1)).toBeNull();
  });

  it('reads multi-byte UTF-8 without confusing it with structure', () => {
    expect(scan(JSON.stringify({ k: '😀{[ユーザー' }), 1)).toBeNull();
  });

  it('names the entry and field that nest too deep', () => {
    const body = { phone_to_server: [{ data: {} }, { data: JSON.parse(nested(70)) }] };
    expect(scan(JSON.stringify(body))).toMatch(/^phone_to_server\[1\]\.data\.a\.a\.a… \(64 levels\)$/);
  });

  it('names keys that hold escapes and arrays inside objects', () => {
    const body = { 'we"ird': [0, 1, { x: [[[]]] }] };
    expect(scan(JSON.stringify(body), 4)).toBe('we\\"ird[2].x[0]… (4 levels)');
  });

  it('When a body arrives in chunks split anywhere, then it finds the same path as in one piece', () => {
    const text = JSON.stringify({ phone_to_server: [{ metadata: { 'k\\"ey': 1 }, data: JSON.parse(nested(80)) }] });
    const whole = scan(text);
    for (const size of [1, 2, 3, 7, 64]) {
      const scanner = createDepthScanner();
      let found: string | null = null;
      for (let i = 0; i < text.length && !found; i += size) found = scanner.push(Buffer.from(text.slice(i, i + size)));
      expect(found, `chunks of ${size}`).toBe(whole);
    }
  });

  it('When a body is a million levels deep, then it is refused at level 65 without reading on', () => {
    const scanner = createDepthScanner();
    expect(scanner.push(Buffer.from('['.repeat(1_000_000)))).toBe('[0][0][0][0][0][0]… (64 levels)');
  });

  it('When any JSON arrives split anywhere, then the scanner answers as on the whole, and refuses exactly the too deep', () => {
    const depthOf = (v: unknown): number =>
      v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v).map(depthOf)) : 0;
    fc.assert(
      fc.property(fc.json({ depthSize: 'medium' }), fc.array(fc.nat(40), { maxLength: 8 }), (text, cuts) => {
        const bytes = Buffer.from(text);
        const whole = createDepthScanner(3).push(bytes);
        expect(whole === null).toBe(depthOf(JSON.parse(text)) <= 3);
        const scanner = createDepthScanner(3);
        let found: string | null = null;
        let at = 0;
        for (const cut of [...cuts, bytes.length]) {
          const end = Math.min(bytes.length, at + cut);
          found ??= scanner.push(bytes.subarray(at, end));
          at = end;
        }
        expect(found).toBe(whole);
      }),
      { numRuns: 2000 },
    );
  });
});
