import { describe, expect, it } from 'vitest';
import { resolveDefaultUser, toEmissionEntry } from './emission-entry.js';
import { ImportFormatError } from './import-format-error.js';

const UUID = '0763de67-f61e-3f5d-90e7-518e69793954';
const place = { file: 'dump.ndjson', line: 7 };

const doc = (extra: Record<string, unknown> = {}) => ({
  _id: { $oid: '55df34ed7d65cb39ee9865a1' },
  user_id: { $uuid: '0763de67f61e3f5d90e7518e69793954' },
  metadata: { key: 'background/location', write_ts: { $numberDouble: '1440688739.5' } },
  data: { ts: 1440688739, loc: { coordinates: [{ $numberDouble: '-122.1' }, 37.4] } },
  ...extra,
});

describe('toEmissionEntry', () => {
  it('When a document is well formed, then its owner, id, metadata and data come out normalised', () => {
    expect(toEmissionEntry(doc(), place)).toEqual({
      ok: true,
      entry: {
        userUuid: UUID,
        oid: '55df34ed7d65cb39ee9865a1',
        metadata: { key: 'background/location', write_ts: 1440688739.5 },
        data: { ts: 1440688739, loc: { coordinates: [-122.1, 37.4] } },
        file: 'dump.ndjson',
      },
    });
  });

  it('When a document has no _id, then the entry has no oid property', () => {
    const { _id, ...rest } = doc();
    const result = toEmissionEntry(rest, place);
    expect(result.ok && Object.hasOwn(result.entry, 'oid')).toBe(false);
  });

  it.each([
    ['an array', [], 'not a JSON object'],
    ['no metadata', { ...doc(), metadata: undefined }, 'metadata is not an object'],
    ['an empty key', doc({ metadata: { key: '' } }), 'metadata.key is not a non-empty string'],
    ['data as an array', doc({ data: [] }), 'data is not an object'],
    ['a user_id that is no UUID', doc({ user_id: 'bob' }), 'user_id "bob" is not a UUID'],
  ])('When a document is %s, then it is refused with a reason', (_name, value, reason) => {
    expect(toEmissionEntry(value, place)).toEqual({ ok: false, reason });
  });

  it('When a document has no user_id and there is no default user, then ImportFormatError names file and line', () => {
    const noUser = { ...doc(), user_id: undefined };
    expect(() => toEmissionEntry(noUser, place)).toThrow(ImportFormatError);
    expect(() => toEmissionEntry(noUser, place)).toThrow(/dump\.ndjson:7/);
    try {
      toEmissionEntry(noUser, place);
    } catch (err) {
      expect((err as ImportFormatError).details).toEqual({ file: 'dump.ndjson', line: 7 });
    }
  });

  it('When a document has no user_id and a default user is given, then the entry belongs to it', () => {
    const result = toEmissionEntry({ ...doc(), user_id: null }, place, UUID);
    expect(result.ok && result.entry.userUuid).toBe(UUID);
  });
});

describe('resolveDefaultUser', () => {
  it('When the default is a string or a per-file function, then it is canonicalised for the file', () => {
    expect(resolveDefaultUser(UUID.toUpperCase(), 'a.json')).toBe(UUID);
    expect(resolveDefaultUser((f) => (f === 'a.json' ? UUID.replaceAll('-', '') : undefined), 'a.json')).toBe(UUID);
    expect(resolveDefaultUser(() => undefined, 'b.json')).toBeUndefined();
    expect(resolveDefaultUser(undefined, 'b.json')).toBeUndefined();
  });

  it('When the default is not a UUID, then ImportFormatError is thrown', () => {
    expect(() => resolveDefaultUser('alice', 'a.json')).toThrow(ImportFormatError);
  });
});
