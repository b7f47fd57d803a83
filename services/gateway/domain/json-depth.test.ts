import { describe, expect, it } from 'vitest';
import { tooDeepAt, tooDeepPath } from './json-depth.js';

const nested = (levels: number) => '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);

describe('tooDeepAt', () => {
  it('accepts exactly the maximum depth and refuses one more', () => {
    expect(tooDeepAt(Buffer.from(nested(64)))).toBe(-1);
    expect(tooDeepAt(Buffer.from(nested(65)))).toBeGreaterThan(0);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    const body = JSON.stringify({ s: '[[[[{{{{\\"[[[[', t: '"{{{' });
    expect(tooDeepAt(Buffer.from(body), 1)).toBe(-1);
  });

  it('reads multi-byte UTF-8 without confusing it with structure', () => {
    expect(tooDeepAt(Buffer.from(JSON.stringify({ k: '😀{[ユーザー' })), 1)).toBe(-1);
  });
});

describe('tooDeepPath', () => {
  it('names the entry and field that nest too deep', () => {
    const body = { phone_to_server: [{ data: {} }, { data: JSON.parse(nested(70)) }] };
    const path = tooDeepPath(body);
    expect(path).toMatch(/^phone_to_server\[1\]\.data\.a\.a\.a… \(\d+ levels\)$/);
  });

  it('is null for a value within the limit', () => {
    expect(tooDeepPath(JSON.parse(nested(64)))).toBeNull();
  });
});
