import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  acceptPutEntries,
  PutRejection,
  toRecordsWithin,
  toSeconds,
  type UsercacheEntry,
  type UsercacheRecord,
} from '../../../shared/events/index.js';
import { recordsFromTexts } from './put-entries.js';
import { entryTexts, locatePutList } from './put-layout.js';

const entry = (writeTs: unknown, extra: Record<string, unknown> = {}) => ({
  metadata: { key: 'background/location', platform: 'android', type: 'sensor-data', write_ts: writeTs, ...extra },
  data: { ts: 1440688707, latitude: 37.4, longitude: -122.1 },
});

describe('acceptPutEntries', () => {
  it('When timestamps are in milliseconds, then write_ts and data.ts come out in seconds', () => {
    const [e] = acceptPutEntries([{ ...entry(1440688707867), data: { ts: 1440688707000 } }], 10) as any[];
    expect(e.writeTs).toBeCloseTo(1440688707.867, 6);
    expect(e.metadata.write_ts).toBeCloseTo(1440688707.867, 6);
    expect(e.data.ts).toBe(1440688707);
    expect(toSeconds(99_999_999_999)).toBe(99_999_999_999);
  });

  it('When metadata.type is missing, then it defaults by key family as the phones mean it', () => {
    const [sensor, message] = acceptPutEntries(
      [entry(1440688707, { type: undefined }), { metadata: { key: 'stats/client_nav_event', write_ts: 1 }, data: {} }],
      10,
    ) as any[];
    expect(sensor.type).toBe('sensor-data');
    expect(message.type).toBe('message');
  });

  it.each([
    [[entry('1440688707')], 'phone_to_server[0].metadata.write_ts'],
    [[entry(-5)], 'phone_to_server[0].metadata.write_ts'],
    [[entry(1e300)], 'not a plausible time'],
    [[entry(1440688707), entry(1440688708, { key: 'bad key' })], 'phone_to_server[1].metadata.key'],
    [[entry(1440688707, { type: 'document' })], 'server-to-phone only'],
    [[{ metadata: { key: 'k', write_ts: 1 }, data: [] }], 'phone_to_server[0].data must be an object'],
    [{ not: 'a list' }, 'phone_to_server must be a list'],
  ])('When the batch is %j, then it is rejected whole, naming %s', (list, why) => {
    const result = acceptPutEntries(list, 10);
    expect(result).toBeInstanceOf(PutRejection);
    expect((result as PutRejection).message).toContain(why);
  });

  it('When a batch holds more entries than allowed, then it is rejected before any entry is read', () => {
    const result = acceptPutEntries([entry(1), entry(2), entry(3)], 2) as PutRejection;
    expect(result.message).toMatch(/3 entries; at most 2/);
  });

  it('When anything at all is given, then it never throws, and a rejection names a problem and an entry index within the batch', () => {
    fc.assert(
      fc.property(fc.anything(), (list) => {
        const result = acceptPutEntries(list, 1000);
        if (result instanceof PutRejection) {
          expect(result.message.length).toBeGreaterThan(10);
          if (result.index !== null) expect(result.index).toBeLessThan((list as unknown[]).length);
        } else {
          expect(Array.isArray(list)).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('When an accepted entry comes out, then its write_ts is a plausible time in seconds and its key is printable ASCII', () => {
    const timestamp = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(0, -1, 1e11, 1e13, 1e14, 1e16, 1e300));
    const anyEntry = fc.record({
      metadata: fc.record({ key: fc.string(), write_ts: timestamp, type: fc.option(fc.string(), { nil: undefined }) }),
      data: fc.oneof(fc.object(), fc.constant(null)),
    });
    fc.assert(
      fc.property(fc.array(anyEntry, { maxLength: 5 }), (list) => {
        const result = acceptPutEntries(list, 1000);
        if (result instanceof PutRejection) return;
        for (const e of result) {
          expect(e.writeTs).toBeGreaterThan(0);
          expect(e.writeTs).toBeLessThan(1e10);
          expect(e.key).toMatch(/^[\x21-\x7e]+$/);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('recordsFromTexts', () => {
  const list = [
    entry(1440688707),
    { ...entry(1440688707867), data: { ts: 1440688707000, nested: { a: [1, 2] } } },
    entry(1440688709, { type: undefined }),
    {
      metadata: { key: 'manual/mode_confirm', write_ts: 1440688710, type: 'message' },
      data: { label: 'a "quoted" label' },
    },
  ];
  const textsOf = (entries: unknown[]) => {
    const text = JSON.stringify({ phone_to_server: entries });
    return entryTexts(text, locatePutList(Buffer.from(text), 'phone_to_server', 50_000)!);
  };
  const parsed = (records: UsercacheRecord[]) =>
    records.map((r) => ({ ...r, metadata_json: JSON.parse(r.metadata_json), data_json: JSON.parse(r.data_json) }));

  it('When entries arrive as text, then the records equal those of the parsed path, unchanged texts kept as sent', () => {
    const fromTexts = recordsFromTexts('u', textsOf(list), 7, 10) as UsercacheRecord[];
    const fromList = toRecordsWithin('u', acceptPutEntries(list, 10) as UsercacheEntry[], 7) as UsercacheRecord[];
    expect(parsed(fromTexts)).toEqual(parsed(fromList));
    expect(fromTexts[0]!.data_json).toBe(JSON.stringify(list[0]!.data));
    expect(JSON.parse(fromTexts[1]!.data_json).ts).toBe(1440688707);
  });

  it.each([
    ['phone_to_server[1] must be an object', [entry(1440688707), 'x'], false],
    ['phone_to_server[0].metadata.write_ts', [entry(-5)], false],
    ['phone_to_server[0] is', [{ ...entry(1440688707), data: { big: 'x'.repeat(2000) } }], true],
  ])('When a put holds a bad entry, then it is refused whole, naming %s', (why, entries, tooLarge) => {
    const result = recordsFromTexts('u', textsOf(entries), 7, 10, 1000);
    expect(result).toBeInstanceOf(PutRejection);
    expect((result as PutRejection).message).toContain(why);
    expect((result as PutRejection).tooLarge).toBe(tooLarge);
  });

  it('When one entry is too large and a later one malformed, then the put is a 400 naming the malformed one, as parsed whole', () => {
    const big = { ...entry(1440688707), data: { big: 'x'.repeat(2000) } };
    const result = recordsFromTexts('u', textsOf([big, 5]), 7, 10, 1000) as PutRejection;
    expect([result.tooLarge, result.index]).toEqual([false, 1]);
  });

  it('When an element is not JSON, or there are too many, then the put is refused naming why', () => {
    const text = `{"phone_to_server": [${JSON.stringify(entry(1440688707))}, {"a" 1}]}`;
    const bad = recordsFromTexts(
      'u',
      entryTexts(text, locatePutList(Buffer.from(text), 'phone_to_server', 50_000)!),
      7,
      10,
    );
    expect((bad as PutRejection).message).toMatch(/not valid JSON: phone_to_server\[1\]/);
    expect((recordsFromTexts('u', textsOf(list), 7, 3) as PutRejection).message).toContain('at most 3 per call');
  });
});
