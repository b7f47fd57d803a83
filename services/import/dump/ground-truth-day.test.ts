import { describe, expect, it } from 'vitest';
import { dumpStem, groundTruthName, groundTruthUser, uuidV5 } from './ground-truth-day.js';

const SHANKARI = '0763de67-f61e-3f5d-90e7-518e69793954';

describe('ground-truth day users', () => {
  it('When a version 5 UUID is made, then it is RFC 4122’s (Python’s uuid.uuid5 gives the same)', () => {
    // uuid.uuid5(uuid.NAMESPACE_DNS, 'www.example.com') and uuid.uuid5(uuid.NAMESPACE_URL, 'https://example.com/')
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe(
      '2ed6657d-e927-568b-95e1-2665a8aea6a2',
    );
    expect(() => uuidV5('x', 'not-a-uuid')).toThrow(RangeError);
  });

  it('When a dump is named, then its stem and its ground truth’s name leave out the folder and the dump extension', () => {
    expect(dumpStem('/a/b/shankari_2015-aug-27.json')).toBe('shankari_2015-aug-27');
    expect(dumpStem('x/day.JSON.gz')).toBe('day');
    expect(dumpStem('day.jsonl.gz')).toBe('day');
    expect(dumpStem('notes.txt')).toBe('notes.txt');
    expect(groundTruthName('/a/day.ndjson.gz')).toBe('day.ground_truth.json');
  });

  it('When a ground-truth day’s user is derived, then it depends on the uuid and the day, not the folder or gzip', () => {
    const user = groundTruthUser(SHANKARI, '/data/shankari_2015-aug-27.json');
    expect(user).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(groundTruthUser(SHANKARI, '/elsewhere/shankari_2015-aug-27.json.gz')).toBe(user);
    expect(groundTruthUser(SHANKARI, '/data/shankari_2015-08-23.json')).not.toBe(user);
    expect(groundTruthUser('00000000-0000-0000-0000-000000000001', '/data/shankari_2015-aug-27.json')).not.toBe(user);
  });
});
