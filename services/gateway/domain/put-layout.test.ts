import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { entryTexts, locatePutList } from './put-layout.js';

/**
 * What the gateway does with a layout: parse the body without its list, then each element on its own. Returns the
 * body as JSON.parse would see it, or 'invalid' when any of those parses fails.
 */
function parseByLayout(text: string): unknown {
  const layout = locatePutList(Buffer.from(text, 'latin1'), 'phone_to_server', 50_000);
  if (layout === null) return 'no layout';
  try {
    const body = JSON.parse(text.slice(0, layout.listOpen + 1) + text.slice(layout.listClose)) as Record<
      string,
      unknown
    >;
    // What middleware/put-body.ts requires of the body without its entries before trusting the layout.
    const emptied = body['phone_to_server'];
    if (!Array.isArray(emptied) || emptied.length !== 0) return 'no layout';
    const texts = entryTexts(text, layout);
    const list = Array.from({ length: texts.count }, (_, i) => {
      const element = JSON.parse(texts.element(i)) as Record<string, unknown>;
      // The texts published for metadata and data are those of the objects JSON.parse keeps.
      for (const [name, member] of [
        ['metadata', texts.metadata(i)],
        ['data', texts.data(i)],
      ] as const) {
        if (member !== null) expect(JSON.parse(member)).toEqual(element[name]);
      }
      return element;
    });
    body['phone_to_server'] = list;
    return body;
  } catch (err) {
    if (err instanceof SyntaxError) return 'invalid';
    throw err;
  }
}

function parseWhole(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return 'invalid';
  }
}

const entry = (i: number) => ({
  metadata: { key: 'background/location', write_ts: 1_700_000_000 + i, type: 'sensor-data' },
  data: { ts: 1_700_000_000 + i, latitude: 37.4, note: 'a "quoted" ] } , : string \\' },
});

describe('locatePutList', () => {
  it('When a put is well formed, then its elements and their metadata and data are found as the phone wrote them', () => {
    const text = JSON.stringify({ user: 'me', phone_to_server: [entry(1), entry(2)] }, null, 1);
    const layout = locatePutList(Buffer.from(text), 'phone_to_server', 50_000);
    expect(layout?.count).toBe(2);
    const texts = entryTexts(text, layout!);
    expect(JSON.parse(texts.element(1))).toEqual(entry(2));
    expect(JSON.parse(texts.metadata(0)!)).toEqual(entry(1).metadata);
    expect(JSON.parse(texts.data(1)!)).toEqual(entry(2).data);
    expect(parseByLayout(text)).toEqual(JSON.parse(text));
  });

  it.each([
    ['no list', '{"user": "me"}'],
    ['the list key twice', '{"phone_to_server": [], "phone_to_server": [1]}'],
    ['a top-level list', '[{"phone_to_server": []}]'],
    ['brackets that do not match', '{"phone_to_server": [{"a": 1]]}'],
    ['a key written with escapes', '{"phone\\u005fto_server": [1]}'],
    ['an unterminated string', '{"phone_to_server": [1], "x": "'],
    ['the list key again with another value', '{"phone_to_server": [{"a": 1}], "phone_to_server": null}'],
    ['the list key again written with escapes', '{"phone_to_server": [{"a": 1}], "phone\\u005fto_server": []}'],
    ['an entry key written with escapes', '{"phone_to_server": [{"metadata": {"a": 1}, "metad\\u0061ta": {"b": 2}}]}'],
  ])('When the body has %s, then there is no layout and the body is parsed whole', (_, text) => {
    expect(locatePutList(Buffer.from(text), 'phone_to_server', 50_000)).toBeNull();
  });

  it('When an element has no metadata or data object, then those texts are null and the element is still found', () => {
    const text = '{"phone_to_server": [{"metadata": [1], "data": 5}, 7, "s", [], {}]}';
    const texts = entryTexts(text, locatePutList(Buffer.from(text), 'phone_to_server', 50_000)!);
    expect(texts.count).toBe(5);
    expect([texts.metadata(0), texts.data(0), texts.element(1), texts.element(2)]).toEqual([null, null, '7', '"s"']);
  });

  it('When a key repeats inside an element, then its last value is the one found, as JSON.parse keeps', () => {
    const text = '{"phone_to_server": [{"data": {"a": 1}, "data": {"b": 2}}]}';
    const texts = entryTexts(text, locatePutList(Buffer.from(text), 'phone_to_server', 50_000)!);
    expect(texts.data(0)).toBe('{"b": 2}');
  });

  it.each([
    ['an empty element', '{"phone_to_server": [1,,2]}'],
    ['a trailing comma', '{"phone_to_server": [1, 2,]}'],
    ['a leading comma', '{"phone_to_server": [,1]}'],
    ['two values in one element', '{"phone_to_server": [1 2]}'],
    ['a colon in the list', '{"phone_to_server": [1: 2]}'],
    ['junk after the body', '{"phone_to_server": [1]} x'],
  ])('When the list holds %s, then parsing by the layout refuses it as parsing the whole body does', (_, text) => {
    expect(parseWhole(text)).toBe('invalid');
    expect(['invalid', 'no layout']).toContain(parseByLayout(text));
  });

  it('When a list holds far more elements than allowed, then spans are kept only one past the limit, and all are counted', () => {
    const text = `{"phone_to_server": [${'0,'.repeat(999_999)}0]}`;
    const layout = locatePutList(Buffer.from(text), 'phone_to_server', 10)!;
    expect(layout.count).toBe(1_000_000);
    expect(layout.spans.length).toBeLessThanOrEqual(11 * 6);
    const texts = entryTexts(text, layout);
    expect([texts.element(10), texts.element(11), texts.metadata(500_000)]).toEqual(['0', '', null]);
  });

  it('When a body is mangled anywhere, then parsing by the layout accepts exactly what parsing it whole accepts, with the same value', () => {
    const base = JSON.stringify({ user: 'a', phone_to_server: [entry(1), [2, { '3': '}' }], 'x,y', entry(2)], z: 1 });
    const alphabet = ['{', '}', '[', ']', ',', ':', '"', '\\', ' ', '1', 'a'];
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(base.length), fc.nat(3), fc.constantFrom(...alphabet)), { maxLength: 3 }),
        (edits) => {
          let text = base;
          for (const [at, drop, insert] of edits) text = text.slice(0, at) + insert + text.slice(at + drop);
          const whole = parseWhole(text);
          const byLayout = parseByLayout(text);
          if (byLayout !== 'no layout') expect(byLayout).toEqual(whole);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
