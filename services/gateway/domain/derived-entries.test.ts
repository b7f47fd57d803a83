import { describe, expect, it } from 'vitest';
import { compositeDateRange, mergeByTime, selectDerivedEntries, type Entry } from './derived-entries.js';

const place = (id: string, enter: number): Entry => ({
  _id: { $oid: id },
  metadata: { key: 'analysis/confirmed_place' },
  data: { enter_ts: enter },
});
const trip = (id: string, start: number, end: number, startPlace: Entry, endPlace: Entry): Entry => ({
  _id: { $oid: id },
  metadata: { key: 'analysis/composite_trip', write_ts: end },
  data: {
    start_ts: start,
    end_ts: end,
    start_confirmed_place: startPlace,
    end_confirmed_place: endPlace,
    sections: [{ _id: { $oid: `${id}s` }, metadata: { key: 'analysis/cleaned_section' }, data: { start_ts: start } }],
    locations: [start, end].map((ts) => ({
      _id: { $oid: `${id}l${ts}` },
      metadata: { key: 'analysis/recreated_location' },
      data: { ts },
    })),
  },
});

const home = place('home', 100);
const work = place('work', 200);
const back = place('home2', 400);
const composites = [trip('b', 300, 400, work, back), trip('a', 50, 200, home, work)];

describe('derived entries for find_entries', () => {
  it('When composite trips are asked on data.end_ts, then the trips ending in the range come back in time order', () => {
    const ids = (es: Entry[]) => es.map((e) => e._id.$oid);
    expect(ids(selectDerivedEntries(composites, ['analysis/composite_trip'], 'data.end_ts', 0, 1000))).toEqual([
      'a',
      'b',
    ]);
    expect(ids(selectDerivedEntries(composites, ['analysis/composite_trip'], 'data.end_ts', 250, 1000))).toEqual(['b']);
    expect(ids(selectDerivedEntries(composites, ['analysis/composite_trip'], 'data.nonsense', 0, 1000))).toEqual([]);
  });

  it('When confirmed trips, locations or places are asked, then they are drawn out of the composites, each once', () => {
    const confirmed = selectDerivedEntries(composites, ['analysis/confirmed_trip'], 'data.end_ts', 0, 1000);
    expect(confirmed.map((e) => e.metadata['key'])).toEqual(['analysis/confirmed_trip', 'analysis/confirmed_trip']);
    const locations = selectDerivedEntries(composites, ['analysis/recreated_location'], 'data.ts', 0, 250);
    expect(locations.map((e) => e.data['ts'])).toEqual([50, 200]);
    const places = selectDerivedEntries(composites, ['analysis/confirmed_place'], 'data.enter_ts', 0, 1000);
    expect(places.map((e) => e._id.$oid)).toEqual(['home', 'work', 'home2']);
  });

  it('When raw and derived entries are asked together, then they are merged in time order', () => {
    const raw = [JSON.stringify({ _id: { $oid: 'r' }, metadata: { write_ts: 250 }, data: {} })];
    const merged = mergeByTime(raw, composites, 'metadata.write_ts').map((j) => JSON.parse(j)._id.$oid);
    expect(merged).toEqual(['a', 'r', 'b']);
  });

  it('When a time range is given, then the dates read cover trips filed under a local date up to two days earlier', () => {
    expect(compositeDateRange(1440633600, 1440719999)).toEqual({ from: '2015-08-25', to: '2015-08-28' });
    expect(compositeDateRange(-1e12, 1e13)).toEqual({ from: '1970-01-01', to: '9999-12-31' });
  });
});
