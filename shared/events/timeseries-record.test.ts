import { describe, expect, it } from 'vitest';
import { startTsOf, toTimeseriesRecord, type TimeseriesRecord } from './timeseries-record.js';

const entryJson = JSON.stringify({ data: { start_ts: 1700000000, end_ts: 1700000050, label: 'walk' } });
const stored = {
  userId: 'u',
  key: 'manual/mode_confirm',
  type: 'message',
  writeTs: 1700000100,
  dataTs: null,
  entryJson,
};
const location = {
  userId: 'u',
  key: 'background/filtered_location',
  type: 'sensor-data',
  writeTs: 1700000100,
  dataTs: 1700000090,
  entryJson: JSON.stringify({ data: { ts: 1700000090, latitude: 37.39, longitude: -122.08 } }),
};

describe('timeseries notices', () => {
  it('When an observation is stored, then its notice names it and its times, never its document', () => {
    expect(toTimeseriesRecord(location, null)).toEqual({
      user_id: 'u',
      key: 'background/filtered_location',
      type: 'sensor-data',
      write_ts: 1700000100,
      data_ts: 1700000090,
      start_ts: null,
      entry_json: null,
    });
  });

  it('When a label is stored, then its notice carries its start and its entry, which a trip builder from before notices reads', () => {
    const notice = toTimeseriesRecord(stored, 1700000000);
    expect(notice).toMatchObject({ key: 'manual/mode_confirm', start_ts: 1700000000, entry_json: entryJson });
    expect(startTsOf(notice)).toBe(1700000000);
    // What the trip builder of the release before notices did with every input's record.
    const before = (JSON.parse(notice.entry_json as string) as { data: { start_ts: number } }).data.start_ts;
    expect(before).toBe(1700000000);
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
    expect(startTsOf(toTimeseriesRecord(location, null))).toBeUndefined();
  });
});
