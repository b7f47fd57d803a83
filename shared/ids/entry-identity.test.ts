import { describe, expect, it } from 'vitest';
import { bsonUuid, derivedObjectId, entryDigest, entryKey, entryObjectId, isObjectIdText } from './entry-identity.js';

const USER = '0763de67-f61e-3f5d-90e7-518e69793954';

// The values below are what stored rows and the phones' caches already hold: a change here re-keys existing data.
describe('entry identity', () => {
  it('When an entry is named, then its key holds user, type, key and write time in that order', () => {
    expect(entryKey(USER, 'sensor-data', 'background/battery', 1617919770.5)).toBe(
      `${USER}\u0000sensor-data\u0000background/battery\u00001617919770.5`,
    );
  });

  it('When a pushed entry gets its object id, then it is the one already stored for it', () => {
    expect(entryObjectId(USER, 'sensor-data', 'background/location', 1617919770.123)).toBe('724aff3003063867024f64c0');
    expect(entryObjectId(USER, 'message', 'manual/mode_confirm', 1700000000)).toBe('e933a5133f1694f3329c34b6');
  });

  it('When an entry is digested, then the digest is 22 base64url characters over its key', () => {
    expect(entryDigest(USER, 'sensor-data', 'background/battery', 1617919770.5)).toBe('tGPURH19wCOclzpq_LlzAH');
  });

  it('When the server derives an object id, then it is the one the phones already cache', () => {
    expect(derivedObjectId(USER, 'trip', 1617919770.5)).toBe('051a7a3034ae7e748cc4bf59');
    expect(derivedObjectId(USER, 'location', 1617919770, 3)).toBe('0d89c013b351554f11360781');
    expect(derivedObjectId('prediction', '0123456789abcdef01234567')).toBe('e0437aa364e9f4d26ee08496');
    expect(derivedObjectId()).toBe('811c9dc5010001939e3779b9');
  });

  it('When a text is checked as an ObjectId, then only 24 hex digits pass, in either case', () => {
    expect(isObjectIdText('643A1A4080EA0C733078B6CB')).toBe(true);
    expect(isObjectIdText('643a1a4080ea0c733078b6c')).toBe(false);
    expect(isObjectIdText('643a1a4080ea0c733078b6cg')).toBe(false);
  });

  it('When a user id is written into a document, then it is the 32 hex digits without dashes', () => {
    expect(bsonUuid(USER)).toEqual({ $uuid: '0763de67f61e3f5d90e7518e69793954' });
  });
});
