import { describe, expect, it } from 'vitest';
import {
  asksStoredComposites,
  collectDerivedEntries,
  collectStoredComposites,
  compositeDaysOf,
  compositeEndRange,
  isDerivedKey,
  mergeByTime,
  selectDerivedEntries,
  type CompositeDay,
  type Entry,
} from './derived-entries.js';

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

  it('When raw and derived entries are asked together, then they are merged in time order by the times they carry', () => {
    const derived = [
      { ts: 200, json: '"a"' },
      { ts: 400, json: '"b"' },
    ];
    // The raw rows' times come from their rows: their JSON is never parsed (here it is not even JSON).
    const raw = [
      { ts: 100, json: 'raw-100' },
      { ts: 250, json: 'raw-250' },
      { ts: 400, json: 'raw-400' },
      { ts: 900, json: 'raw-900' },
    ];
    expect(mergeByTime(raw, derived)).toEqual(['raw-100', '"a"', 'raw-250', 'raw-400', '"b"', 'raw-900']);
    expect(mergeByTime([], derived)).toEqual(['"a"', '"b"']);
    expect(mergeByTime(raw.slice(0, 1), [])).toEqual(['raw-100']);
  });

  it('When a time range is given, then the composite ends read reach two days either side of it', () => {
    expect(compositeEndRange(1440633600, 1440719999)).toEqual({ from: 1440460800, to: 1440892799 });
  });
});

describe('bounded derived entries', () => {
  const DAY = 86_400;
  const base = Date.parse('2015-08-01T00:00:00Z') / 1000;
  const date = (i: number) => new Date((base + i * DAY) * 1000).toISOString().slice(0, 10);
  /** Thirty dates of one trip each, counting how many dates were read. */
  function month(read: { n: number }, newestFirst = false): AsyncIterable<CompositeDay> {
    const order = Array.from({ length: 30 }, (_, i) => i);
    if (newestFirst) order.reverse();
    return (async function* () {
      for (const i of order) {
        read.n += 1;
        const start = base + i * DAY + 3600;
        yield {
          localDate: date(i),
          entries: [trip(`t${i}`, start, start + 600, place(`p${i}`, start - 1), place(`p${i + 1}`, start + 600))],
        };
      }
    })();
  }
  const query = { keys: ['analysis/composite_trip'], keyTime: 'data.end_ts', start: 0, end: 1e10 };
  const ids = (found: { json: string }[]) => found.map((e) => (JSON.parse(e.json) as Entry)._id.$oid);

  it('When a limit is given, then reading stops two dates after it is reached and the earliest come back', async () => {
    const read = { n: 0 };
    const found = await collectDerivedEntries(month(read), query, { limit: 3 });
    expect(ids(found)).toEqual(['t0', 't1', 't2']);
    expect(read.n).toBeLessThanOrEqual(6);
  });

  it('When newest first, then the latest come back in ascending order', async () => {
    const read = { n: 0 };
    const found = await collectDerivedEntries(month(read, true), query, { limit: 2, newestFirst: true });
    expect(ids(found)).toEqual(['t28', 't29']);
    expect(read.n).toBeLessThanOrEqual(5);
  });

  it('When places are shared by neighbouring dates, then each comes back once', async () => {
    const found = await collectDerivedEntries(month({ n: 0 }), {
      ...query,
      keys: ['analysis/confirmed_place'],
      keyTime: 'data.enter_ts',
    });
    const placeIds = ids(found);
    expect(new Set(placeIds).size).toBe(placeIds.length);
  });

  /** Thirty dates as `month`, but the trip of date 10 was rebuilt later: its write_ts is 100 days after it. */
  function monthWithRebuiltDay(read: { n: number }, newestFirst: boolean): AsyncIterable<CompositeDay> {
    return (async function* () {
      for await (const day of month(read, newestFirst)) {
        if (day.localDate !== date(10)) yield day;
        else {
          const [t] = day.entries;
          yield { ...day, entries: [{ ...t!, metadata: { ...t!.metadata, write_ts: base + 110 * DAY } }] };
        }
      }
    })();
  }

  it('When the time key is metadata.write_ts, then reading does not stop early: a rebuilt date can hold the latest entry', async () => {
    const read = { n: 0 };
    const byWrite = { ...query, keyTime: 'metadata.write_ts' };
    const last = await collectDerivedEntries(monthWithRebuiltDay(read, true), byWrite, { limit: 2, newestFirst: true });
    // Stopping two dates after the limit (t29, t28) would answer t28, t29 and miss t10, written last of all.
    expect(ids(last)).toEqual(['t29', 't10']);
    expect(read.n).toBe(30);
    const first = await collectDerivedEntries(monthWithRebuiltDay({ n: 0 }, false), byWrite, { limit: 11 });
    expect(ids(first)).toEqual(['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7', 't8', 't9', 't11']);
    // A travel time still stops early.
    const early = { n: 0 };
    await collectDerivedEntries(monthWithRebuiltDay(early, true), query, { limit: 2, newestFirst: true });
    expect(early.n).toBeLessThanOrEqual(5);
  });

  it('When the entries held pass the byte cap, then reading stops with the given error; entries past the limit do not count', async () => {
    const oneTrip = Buffer.byteLength((await collectDerivedEntries(month({ n: 0 }), query, { limit: 1 }))[0]!.json) + 1;
    const read = { n: 0 };
    const tooLarge = () => new Error('too large');
    await expect(
      collectDerivedEntries(
        month(read),
        { ...query, keyTime: 'metadata.write_ts' },
        { maxBytes: 5 * oneTrip, tooLarge },
      ),
    ).rejects.toThrow('too large');
    // Stopped at about the fifth date, not after reading all thirty.
    expect(read.n).toBeLessThanOrEqual(6);
    // Three entries fit: the limit keeps the held entries (and bytes) to the best three while reading on.
    const kept = await collectDerivedEntries(
      month({ n: 0 }),
      { ...query, keyTime: 'metadata.write_ts' },
      { limit: 3, maxBytes: 5 * oneTrip, tooLarge },
    );
    expect(ids(kept)).toEqual(['t0', 't1', 't2']);
  });

  it('When keys or time fields are named like Object properties, then they are ordinary unknown names', () => {
    for (const k of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) expect(isDerivedKey(k)).toBe(false);
    expect(selectDerivedEntries(composites, ['analysis/composite_trip'], 'metadata.constructor', 0, 1e10)).toEqual([]);
    expect(selectDerivedEntries(composites, ['__proto__'], 'data.end_ts', 0, 1e10)).toEqual([]);
  });
});

describe('stored composites', () => {
  async function* rows(list: Array<[number, string]>) {
    for (const [endTs, localDate] of list)
      yield {
        endTs,
        entryId: `t${endTs}`,
        localDate,
        json: JSON.stringify({ _id: { $oid: `t${endTs}` }, metadata: {}, data: { end_ts: endTs } }),
      };
  }

  it('When the app polls composite trips by their end, then the stored text is the answer and nothing else is', () => {
    expect(asksStoredComposites(['analysis/composite_trip'], 'data.end_ts')).toBe(true);
    expect(asksStoredComposites(['analysis/composite_trip'], 'data.start_ts')).toBe(false);
    expect(asksStoredComposites(['analysis/composite_trip', 'analysis/cleaned_section'], 'data.end_ts')).toBe(false);
    expect(asksStoredComposites(['analysis/confirmed_trip'], 'data.end_ts')).toBe(false);
  });

  it('When newest first with a limit, then the latest rows are kept, in ascending order, with their text unchanged', async () => {
    const found = await collectStoredComposites(
      rows([
        [30, 'd'],
        [20, 'd'],
        [10, 'd'],
      ]),
      { limit: 2 },
    );
    expect(found.map((f) => f.ts)).toEqual([20, 30]);
    expect(JSON.parse(found[0]!.json)).toEqual({ _id: { $oid: 't20' }, metadata: {}, data: { end_ts: 20 } });
  });

  it('When a moved trip is filed under two dates for a moment, then it is sent once', async () => {
    const found = await collectStoredComposites(
      rows([
        [10, 'a'],
        [10, 'b'],
        [20, 'b'],
      ]),
      {},
    );
    expect(found.map((f) => f.ts)).toEqual([10, 20]);
  });

  it('When the kept rows pass the byte cap, then it says so instead of answering part', async () => {
    await expect(
      collectStoredComposites(
        rows([
          [1, 'd'],
          [2, 'd'],
        ]),
        { maxBytes: 80, tooLarge: () => new Error('too large') },
      ),
    ).rejects.toThrow('too large');
  });

  it('When rows of several dates come in end order, then each run of one date is one day', async () => {
    const days: CompositeDay[] = [];
    for await (const d of compositeDaysOf(
      rows([
        [1, 'a'],
        [2, 'a'],
        [3, 'b'],
        [4, 'c'],
        [5, 'c'],
      ]),
    ))
      days.push(d);
    expect(days.map((d) => [d.localDate, d.entries.length])).toEqual([
      ['a', 2],
      ['b', 1],
      ['c', 2],
    ]);
  });
});

describe('inferred sections and their predictions', () => {
  const inferred: Entry = {
    _id: { $oid: 'inferred1' },
    metadata: { key: 'analysis/inferred_section', write_ts: 700 },
    data: {
      trip_id: { $oid: 'trip1' },
      start_ts: 500,
      end_ts: 700,
      sensed_mode: 3,
      sensed_mode_str: 'BUS',
      cleaned_section: { $oid: 'cleaned1' },
    },
  };
  const composite: Entry = {
    _id: { $oid: 'trip1' },
    metadata: { key: 'analysis/composite_trip', write_ts: 700 },
    data: {
      start_ts: 500,
      end_ts: 700,
      sections: [inferred],
      locations: [{ _id: { $oid: 'l1' }, metadata: {}, data: { ts: 500, mode: 0, section: { $oid: 'cleaned1' } } }],
    },
  };

  it('When inferred sections are asked for, then they are the composite’s sections with the predicted mode', () => {
    const [section] = selectDerivedEntries([composite], ['analysis/inferred_section'], 'data.start_ts', 0, 1000);
    expect(section).toBe(inferred);
  });

  it('When cleaned sections are asked for, then each inferred section comes back as its cleaned section with the sensed mode', () => {
    const [cleaned] = selectDerivedEntries([composite], ['analysis/cleaned_section'], 'data.start_ts', 0, 1000);
    expect(cleaned!._id.$oid).toBe('cleaned1');
    expect(cleaned!.metadata['key']).toBe('analysis/cleaned_section');
    expect(cleaned!.data['sensed_mode']).toBe(0); // MotionTypes.IN_VEHICLE, from its locations
    expect(cleaned!.data).not.toHaveProperty('cleaned_section');
    expect(cleaned!.data).not.toHaveProperty('sensed_mode_str');
  });

  it('When predictions are asked for, then each is the rule engine’s one mode for a cleaned section, with the same id on every read', () => {
    const read = () => selectDerivedEntries([composite], ['inference/prediction'], 'data.start_ts', 0, 1000);
    const [prediction] = read();
    expect(prediction!.metadata['key']).toBe('inference/prediction');
    expect(prediction!.data).toEqual({
      trip_id: { $oid: 'trip1' },
      section_id: { $oid: 'cleaned1' },
      algorithm_id: 2,
      predicted_mode_map: { BUS: 1 },
      start_ts: 500,
      end_ts: 700,
    });
    expect(prediction!._id.$oid).toMatch(/^[0-9a-f]{24}$/);
    expect(read()[0]!._id).toEqual(prediction!._id);
  });

  it('When a composite was stored before modes were inferred, then its sections are cleaned sections and nothing is inferred', () => {
    const old = trip('o', 10, 20, home, work);
    expect(selectDerivedEntries([old], ['analysis/cleaned_section'], 'data.start_ts', 0, 100)).toHaveLength(1);
    expect(
      selectDerivedEntries([old], ['analysis/inferred_section', 'inference/prediction'], 'data.start_ts', 0, 100),
    ).toEqual([]);
  });
});
