import { describe, expect, it } from 'vitest';
import { startTsOf, toTimeseriesRecord, type TimeseriesRecord } from './timeseries-record.js';

const stored = { userId: 'u', key: 'manual/mode_confirm', type: 'message', writeTs: 1700000100, dataTs: null };

describe('timeseries notices', () => {
  it('When an entry is stored, then its notice names it and its start, never its document', () => {
    const notice = toTimeseriesRecord(stored, 1700000000);
    expect(notice).toEqual({
      user_id: 'u',
      key: 'manual/mode_confirm',
      type: 'message',
      write_ts: 1700000100,
      data_ts: null,
      start_ts: 1700000000,
      entry_json: null,
    });
    expect(startTsOf(notice)).toBe(1700000000);
  });

  it('When a record predates notices, then its start is read from the entry it carries', () => {
    const legacy = {
      user_id: 'u',
      key: 'manual/mode_confirm',
      type: 'message',
      write_ts: 1700000100,
      data_ts: null,
      entry_json: JSON.stringify({ data: { start_ts: 1699999000, label: 'walk' } }),
    } as unknown as TimeseriesRecord; // decoded with the old writer schema: no start_ts at all
    expect(startTsOf(legacy)).toBe(1699999000);
    expect(startTsOf({ ...legacy, entry_json: '{"data": {}}' })).toBeUndefined();
    expect(startTsOf({ ...legacy, entry_json: 'not json' })).toBeUndefined();
    expect(startTsOf(toTimeseriesRecord(stored, null))).toBeUndefined();
  });
});
