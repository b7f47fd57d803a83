import { describe, expect, it } from 'vitest';
import { MAX_CONVERTED_ENTRY_BYTES, type UsercacheRecord } from '../../../shared/events/index.js';
import { convertEntry } from './convert-entry.js';
import { prepareEntry } from './prepare-entry.js';

const rules = { convert: convertEntry, objectId: () => '0123456789abcdef01234567' };
const USER = '6a9e4c2e-9f5c-4f0e-9d59-2d3f6a4b9a10';

function record(metadata: unknown, data: unknown, overrides: Partial<UsercacheRecord> = {}): UsercacheRecord {
  return {
    user_id: USER,
    key: 'background/battery',
    type: 'sensor-data',
    write_ts: 1617919770,
    platform: 'android',
    received_ts: 1617919771,
    metadata_json: typeof metadata === 'string' ? metadata : JSON.stringify(metadata),
    data_json: typeof data === 'string' ? data : JSON.stringify(data),
    ...overrides,
  };
}
const metadata = {
  key: 'background/battery',
  platform: 'android',
  type: 'sensor-data',
  write_ts: 1617919770,
  time_zone: 'UTC',
};

describe('prepareEntry', () => {
  it('When the entry converts, then it is a stored entry with its document as JSON', () => {
    const prepared = prepareEntry(record(metadata, { battery_level_pct: 50, ts: 1617919770 }), rules);
    expect(prepared.ok).toBe(true);
    if (prepared.ok) expect(JSON.parse(prepared.entry.entryJson)).toMatchObject({ data: { battery_level_pct: 50 } });
  });

  it.each([
    ['{not json', /metadata is not JSON/],
    ['null', /metadata is not a JSON object/],
    ['[1]', /metadata is not a JSON object/],
  ])('When metadata_json is %s, then it is a reason, not a throw', (json, reason) => {
    expect(prepareEntry(record(json, {}), rules)).toMatchObject({ ok: false, reason: expect.stringMatching(reason) });
  });

  it('When the conversion rules throw, then the reason says so', () => {
    const throwing = {
      ...rules,
      convert: () => {
        throw new TypeError('boom');
      },
    };
    expect(prepareEntry(record(metadata, {}), throwing)).toMatchObject({ ok: false, reason: 'conversion threw: boom' });
  });

  it('When an entry under the limit grows past it in conversion (numbers printed in full), then it is refused', () => {
    // "1e20" is 4 bytes in; JSON.stringify prints it as 21 digits.
    const count = Math.ceil(MAX_CONVERTED_ENTRY_BYTES / 20);
    const data = `{"ts":1617919770,"values":[${Array(count).fill('1e20').join(',')}]}`;
    expect(data.length).toBeLessThan(MAX_CONVERTED_ENTRY_BYTES);
    const prepared = prepareEntry(record(metadata, data), rules);
    expect(prepared).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/converted entry is \d+ bytes, more than/),
    });
  });
});
