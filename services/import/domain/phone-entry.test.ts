import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { EmissionEntry } from './emission-entry.js';
import { isRawPhoneKey, toPhoneEntry } from './phone-entry.js';
import { emissionFixturesDir } from '../../../test/helpers/fixtures.js';

const REAL_DAY = join(emissionFixturesDir(), 'emission-real-days/shankari_2015-aug-27.json');

describe('isRawPhoneKey', () => {
  it.each([
    'background/location',
    'background/filtered_location',
    'background/motion_activity',
    'statemachine/transition',
    'config/consent',
    'manual/trip_user_input',
    'stats/client_time',
  ])('When the key is %s, then a phone pushes it', (key) => {
    expect(isRawPhoneKey(key)).toBe(true);
  });

  it.each([
    'analysis/confirmed_trip',
    'analysis/cleaned_trip',
    'segmentation/raw_trip',
    'inference/prediction',
    'mode_inference/model',
    'metrics/daily_user_count',
    'background/',
    'backgroundx/location',
    'diary/trips-2015-08-27',
    '',
  ])('When the key is %j, then it is not a phone key', (key) => {
    expect(isRawPhoneKey(key)).toBe(false);
  });
});

describe('toPhoneEntry', () => {
  const entry: EmissionEntry = {
    userUuid: '0763de67-f61e-3f5d-90e7-518e69793954',
    oid: '55df34ed7d65cb39ee9865a1',
    metadata: {
      key: 'background/location',
      platform: 'android',
      write_ts: 1440688739.672,
      time_zone: 'America/Los_Angeles',
      type: 'sensor-data',
      read_ts: 0,
      write_local_dt: { year: 2015 },
      write_fmt_time: '2015-08-27T08:18:59.672000-07:00',
    },
    data: { ts: 1440688739.672, latitude: 37.39 },
    file: 'x.json',
  };

  it('When an entry is turned into a phone entry, then it keeps what a phone sends and nothing of the server', () => {
    expect(toPhoneEntry(entry)).toEqual({
      metadata: {
        key: 'background/location',
        platform: 'android',
        write_ts: 1440688739.672,
        time_zone: 'America/Los_Angeles',
        type: 'sensor-data',
        read_ts: 0,
      },
      data: { ts: 1440688739.672, latitude: 37.39 },
    });
  });

  it('When the phone entry is changed, then the original entry is not', () => {
    const phone = toPhoneEntry(entry);
    phone.metadata['key'] = 'changed';
    phone.data['ts'] = 0;
    expect(entry.metadata['key']).toBe('background/location');
    expect(entry.data['ts']).toBe(1440688739.672);
  });

  it('When a real day is turned into phone entries, then none has an _id or user_id and every key is a phone key', () => {
    const docs = JSON.parse(readFileSync(REAL_DAY, 'utf8')) as Array<Record<string, Record<string, unknown>>>;
    for (const d of docs) {
      const phone = toPhoneEntry({
        userUuid: 'u',
        metadata: d['metadata'] as Record<string, unknown>,
        data: d['data'] as Record<string, unknown>,
        file: REAL_DAY,
      });
      expect(Object.keys(phone).sort()).toEqual(['data', 'metadata']);
      expect(phone.metadata).not.toHaveProperty('_id');
      expect(phone.metadata).toMatchObject({
        key: expect.any(String),
        platform: 'android',
        write_ts: expect.any(Number),
      });
      expect(isRawPhoneKey(phone.metadata['key'] as string)).toBe(true);
    }
  });
});
