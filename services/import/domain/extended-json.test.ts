import { describe, expect, it } from 'vitest';
import {
  canonicalUuid,
  normaliseExtendedJson,
  objectIdFromExtendedJson,
  uuidFromExtendedJson,
} from './extended-json.js';

const UUID = '9c084ef4-2f97-4196-bd37-950c17938ec6';
const HEX = '9c084ef42f974196bd37950c17938ec6';
const BASE64 = Buffer.from(HEX, 'hex').toString('base64');

describe('uuidFromExtendedJson', () => {
  it.each([
    ['a plain string with dashes', UUID],
    ['a plain string without dashes, upper case', HEX.toUpperCase()],
    ['e-mission json_util $uuid (32 hex)', { $uuid: HEX }],
    ['canonical v2 $uuid (dashed)', { $uuid: UUID }],
    ['v2 $binary subType 04', { $binary: { base64: BASE64, subType: '04' } }],
    ['v2 $binary subType 03 (pythonLegacy: bytes in order)', { $binary: { base64: BASE64, subType: '03' } }],
    ['v2 $binary subType "4"', { $binary: { base64: BASE64, subType: '4' } }],
    ['v1 $binary with $type 03', { $binary: BASE64, $type: '03' }],
    ['v1 $binary with $type first', { $type: '04', $binary: BASE64 }],
  ])('When the user id is %s, then it is the lowercase dashed UUID', (_name, value) => {
    expect(uuidFromExtendedJson(value)).toBe(UUID);
  });

  it.each([
    ['a binary of another subtype', { $binary: { base64: BASE64, subType: '00' } }],
    ['a binary of 15 bytes', { $binary: { base64: Buffer.alloc(15).toString('base64'), subType: '04' } }],
    ['base64 with stray characters', { $binary: { base64: `${BASE64.slice(0, -4)}!!==`, subType: '04' } }],
    ['a string that is not hex', 'not-a-uuid'],
    ['a number', 42],
    ['an object with extra keys', { $uuid: HEX, other: 1 }],
    ['null', null],
  ])('When the user id is %s, then it is undefined', (_name, value) => {
    expect(uuidFromExtendedJson(value)).toBeUndefined();
  });
});

describe('canonicalUuid', () => {
  it('When a UUID comes in braces and upper case, then it is lowercase 8-4-4-4-12', () => {
    expect(canonicalUuid(`{${UUID.toUpperCase()}}`)).toBe(UUID);
  });
});

describe('objectIdFromExtendedJson', () => {
  it('When _id is {$oid} or a plain hex string, then it is the lowercase hex; anything else is undefined', () => {
    expect(objectIdFromExtendedJson({ $oid: '643A1A4080EA0C733078B6CB' })).toBe('643a1a4080ea0c733078b6cb');
    expect(objectIdFromExtendedJson('643a1a4080ea0c733078b6cb')).toBe('643a1a4080ea0c733078b6cb');
    expect(objectIdFromExtendedJson({ $oid: 'short' })).toBeUndefined();
    expect(objectIdFromExtendedJson(undefined)).toBeUndefined();
  });
});

describe('normaliseExtendedJson', () => {
  it('When numbers are wrapped, at any depth and in arrays, then they become JS numbers', () => {
    const value = {
      ts: { $numberDouble: '1440688739.672' },
      n: { $numberInt: '-3' },
      big: { $numberLong: '1681454063963' },
      dec: { $numberDecimal: '0.1' },
      loc: { type: 'Point', coordinates: [{ $numberDouble: '-122.08' }, { $numberDouble: '37.39' }] },
      special: [{ $numberDouble: 'NaN' }, { $numberDouble: 'Infinity' }, { $numberDouble: '-Infinity' }],
      negativeZero: { $numberDouble: '-0.0' },
    };
    expect(normaliseExtendedJson(value)).toEqual({
      ts: 1440688739.672,
      n: -3,
      big: 1681454063963,
      dec: 0.1,
      loc: { type: 'Point', coordinates: [-122.08, 37.39] },
      special: [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY],
      negativeZero: -0,
    });
  });

  it('When a wrapper is not a number spelling, then it is left as it is', () => {
    const odd = {
      a: { $numberDouble: 'abc' },
      b: { $numberInt: '' },
      c: { $numberInt: 5 },
      d: { $numberDouble: '1', x: 1 },
    };
    expect(normaliseExtendedJson(odd)).toEqual(odd);
  });

  it('When UUIDs are spelled differently, then every spelling becomes {$uuid: dashed}', () => {
    const value = [{ $uuid: HEX }, { $binary: { base64: BASE64, subType: '04' } }, { $binary: BASE64, $type: '03' }];
    expect(normaliseExtendedJson(value)).toEqual([{ $uuid: UUID }, { $uuid: UUID }, { $uuid: UUID }]);
  });

  it('When a binary is not a UUID, or an $oid, then it is kept as it is', () => {
    const value = { bin: { $binary: { base64: 'AAE=', subType: '00' } }, id: { $oid: '643a1a4080ea0c733078b6cb' } };
    expect(normaliseExtendedJson(value)).toEqual(value);
  });

  it('When dates come as ms, {$numberLong} or ISO text, then each is {$date: epoch ms}', () => {
    const ms = Date.UTC(2016, 5, 15, 12, 0, 0, 250);
    expect(
      normaliseExtendedJson([
        { $date: ms },
        { $date: { $numberLong: String(ms) } },
        { $date: '2016-06-15T12:00:00.250Z' },
        { $date: 'not a date' },
      ]),
    ).toEqual([{ $date: ms }, { $date: ms }, { $date: ms }, { $date: 'not a date' }]);
  });

  it('When the input is normalised, then it is not changed and __proto__ stays an own key', () => {
    const input = JSON.parse('{"a":{"$numberInt":"1"},"__proto__":{"polluted":true}}') as Record<string, unknown>;
    const snapshot = JSON.stringify(input);
    const out = normaliseExtendedJson(input) as Record<string, unknown>;
    expect(JSON.stringify(input)).toBe(snapshot);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect((out as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
