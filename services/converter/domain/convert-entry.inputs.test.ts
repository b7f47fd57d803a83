import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { UsercacheEntry } from '../../../shared/events/index.js';
import { emissionFixturesDir } from '../../../test/helpers/fixtures.js';
import { convertEntry } from './convert-entry.js';

// The manual/* inputs (labels, surveys, notes) as e-mission's generic/userlabel.py and generic/one_time_survey.py
// format them; the rest of convertEntry is in convert-entry.test.ts. Ground truth: shankari_2023-04-13's inputs
// and the composite trips e-mission expects for them, both stored with e-mission's formatted fields.

type RawEntry = { _id?: unknown; metadata: Record<string, unknown>; data: Record<string, unknown> };

const FORMATTED_INPUT_FIELDS = ['start_local_dt', 'start_fmt_time', 'end_local_dt', 'end_fmt_time'];
const labelsDir = join(emissionFixturesDir(), 'emission-labels');
const readLabels = (name: string) => JSON.parse(readFileSync(join(labelsDir, name), 'utf8')) as RawEntry[];

function pushed(raw: RawEntry): UsercacheEntry {
  const m = raw.metadata;
  return {
    key: String(m['key']),
    type: String(m['type'] ?? 'message'),
    writeTs: Number(m['write_ts']),
    platform: typeof m['platform'] === 'string' ? m['platform'] : null,
    metadata: m,
    data: raw.data,
  };
}

/** A stored e-mission input turned back into what the phone pushed: without the fields the server adds. */
function asPhoneSentIt(raw: RawEntry): UsercacheEntry {
  const { write_local_dt: _wl, write_fmt_time: _wf, ...metadata } = raw.metadata;
  const data = Object.fromEntries(Object.entries(raw.data).filter(([k]) => !FORMATTED_INPUT_FIELDS.includes(k)));
  return pushed({ metadata, data });
}

function input(key: string, data: Record<string, unknown>, metadata: Record<string, unknown> = {}): UsercacheEntry {
  return pushed({
    metadata: {
      key,
      type: 'message',
      platform: 'android',
      write_ts: 1681446348.619,
      time_zone: 'America/Los_Angeles',
      read_ts: 0,
      ...metadata,
    },
    data,
  });
}

/** Every input e-mission embedded in a composite trip: trip surveys, trip notes, the end place's notes. */
function embeddedInputs(trips: RawEntry[]): RawEntry[] {
  const found: RawEntry[] = [];
  for (const trip of trips) {
    const d = trip.data as {
      user_input?: Record<string, unknown>;
      additions?: RawEntry[];
      end_confirmed_place?: { data: { additions?: RawEntry[] } };
    };
    for (const v of Object.values(d.user_input ?? {}))
      if (typeof v === 'object' && v !== null) found.push(v as RawEntry);
    found.push(...(d.additions ?? []), ...(d.end_confirmed_place?.data.additions ?? []));
  }
  return found;
}

describe('manual inputs on e-mission’s real data', () => {
  it('When every input of shankari_2023-04-13 arrives as the phone sent it, then it is stored as e-mission stored it', () => {
    const inputs = readLabels('shankari_2023-04-13.user_inputs.json');
    expect(inputs).toHaveLength(26);
    for (const raw of inputs) {
      const result = convertEntry(asPhoneSentIt(raw));
      if (!result.ok) throw new Error(`${String(raw.metadata['key'])}: ${result.reason}`);
      expect(result.entry.data).toEqual(raw.data);
      expect(result.entry.metadata).toEqual(raw.metadata);
      expect(result.entry.dataTs).toBeNull();
    }
  });

  it('When the inputs inside e-mission’s expected composite trips are reformatted, then every formatted field is equal', () => {
    const embedded = embeddedInputs(
      readLabels('shankari_2023-04-13.retained-last-place.alt.expected_composite_trips.json'),
    );
    // 5 trip surveys, their notes, and both days' place notes (fractional start_ts such as 18:58:47.497122 among them).
    expect(embedded.length).toBeGreaterThanOrEqual(25);
    for (const raw of embedded) {
      const result = convertEntry(asPhoneSentIt(raw));
      if (!result.ok) throw new Error(result.reason);
      for (const field of FORMATTED_INPUT_FIELDS) expect(result.entry.data[field]).toEqual(raw.data[field]);
      expect(result.entry.metadata['write_fmt_time']).toBe(raw.metadata['write_fmt_time']);
    }
  });

  it('When a trip survey arrives, then e-mission’s values for it come out field by field', () => {
    const survey = readLabels('shankari_2023-04-13.user_inputs.json').find(
      (e) => (e._id as { $oid: string }).$oid === '643a1a4080ea0c733078b6ba',
    );
    const result = convertEntry(asPhoneSentIt(survey as RawEntry));
    expect(result.ok && result.entry.data).toMatchObject({
      // arrow rounds to microseconds, as isoLocal does.
      start_ts: 1681437527.4971218,
      start_fmt_time: '2023-04-13T18:58:47.497122-07:00',
      end_fmt_time: '2023-04-13T19:12:02.981000-07:00',
      start_local_dt: { year: 2023, month: 4, day: 13, hour: 18, minute: 58, second: 47, weekday: 3 },
      end_local_dt: { hour: 19, minute: 12, second: 2, timezone: 'America/Los_Angeles' },
      name: 'TripConfirmSurvey',
    });
  });
});

describe('manual inputs: the formatted shape', () => {
  it('When a MULTILABEL label arrives, then its data is the phone’s plus the four local fields, exactly', () => {
    const result = convertEntry(
      input('manual/mode_confirm', { start_ts: 1681437527.497122, end_ts: 1681438322.981, label: 'e-bike' }),
    );
    const la = { year: 2023, month: 4, day: 13, weekday: 3, timezone: 'America/Los_Angeles' };
    expect(result).toEqual({
      ok: true,
      entry: {
        key: 'manual/mode_confirm',
        type: 'message',
        writeTs: 1681446348.619,
        dataTs: null,
        metadata: {
          key: 'manual/mode_confirm',
          type: 'message',
          platform: 'android',
          read_ts: 0,
          write_ts: 1681446348.619,
          time_zone: 'America/Los_Angeles',
          write_local_dt: { ...la, hour: 21, minute: 25, second: 48 },
          write_fmt_time: '2023-04-13T21:25:48.619000-07:00',
        },
        data: {
          start_ts: 1681437527.497122,
          end_ts: 1681438322.981,
          label: 'e-bike',
          start_local_dt: { ...la, hour: 18, minute: 58, second: 47 },
          start_fmt_time: '2023-04-13T18:58:47.497122-07:00',
          end_local_dt: { ...la, hour: 19, minute: 12, second: 2 },
          end_fmt_time: '2023-04-13T19:12:02.981000-07:00',
        },
      },
    });
  });

  it.each(['manual/mode_confirm', 'manual/purpose_confirm', 'manual/replaced_mode', 'manual/destination_confirm'])(
    'When %s arrives, then it gets start and end local times and keeps its label',
    (key) => {
      const result = convertEntry(input(key, { start_ts: 1681437527, end_ts: 1681438322, label: 'other_thing' }));
      expect(result).toMatchObject({
        ok: true,
        entry: { key, data: { label: 'other_thing', start_fmt_time: '2023-04-13T18:58:47-07:00' } },
      });
    },
  );

  it('When a deleted note arrives, then status, match_id and the survey documents are kept as sent', () => {
    const sent = {
      label: '1 Personal Care, ',
      name: 'TimeUseSurvey',
      version: 9,
      xmlResponse: '<a id="a"><start>2023-04-13T21:31:40.320-07:00</start></a>',
      jsonDocResponse: { a: { attr: { id: 'a' }, start: '2023-04-13T21:31:40.320-07:00', nested: [1, 'x'] } },
      start_ts: 1681444800,
      end_ts: 1681446700,
      match_id: '2f94bd8d-d631-4dd6-8c52-a44038c1c252',
      key: 'manual/place_addition_input',
      status: 'DELETED',
    };
    for (const key of ['manual/place_addition_input', 'manual/trip_addition_input', 'manual/trip_user_input']) {
      const result = convertEntry(input(key, sent));
      expect(result.ok).toBe(true);
      if (!result.ok) continue;
      const { start_local_dt, start_fmt_time, end_local_dt, end_fmt_time, ...rest } = result.entry.data;
      expect(rest).toEqual(sent);
      expect([start_fmt_time, end_fmt_time]).toEqual(['2023-04-13T21:00:00-07:00', '2023-04-13T21:31:40-07:00']);
      expect(start_local_dt).toMatchObject({ hour: 21, minute: 0 });
      expect(end_local_dt).toMatchObject({ hour: 21, minute: 31, second: 40 });
    }
  });

  it('When a label spans a daylight-saving change, then start and end each get their own offset', () => {
    // 2023-03-12 01:59 PST → 03:01 PDT in Los Angeles.
    const result = convertEntry(
      input('manual/purpose_confirm', { start_ts: 1678615140, end_ts: 1678615260, label: 'work' }),
    );
    expect(result.ok && result.entry.data).toMatchObject({
      start_fmt_time: '2023-03-12T01:59:00-08:00',
      end_fmt_time: '2023-03-12T03:01:00-07:00',
      start_local_dt: { hour: 1, minute: 59 },
      end_local_dt: { hour: 3, minute: 1 },
    });
  });

  it('When the input carries its own zone, then the local times are in that zone', () => {
    const data = { start_ts: 1681437527, end_ts: 1681438322, label: 'walk' };
    const result = convertEntry(input('manual/mode_confirm', data, { time_zone: 'Asia/Kolkata' }));
    expect(result.ok && result.entry.data).toMatchObject({
      start_fmt_time: '2023-04-14T07:28:47+05:30',
      start_local_dt: { day: 14, hour: 7, minute: 28, timezone: 'Asia/Kolkata' },
    });
  });

  it.each(['android', 'ios'])(
    'When a %s input carries no time zone, then e-mission’s America/Los_Angeles is used and recorded',
    (platform) => {
      const e = input('manual/trip_user_input', { start_ts: 1681437527, end_ts: 1681438322, name: 'S' }, { platform });
      delete e.metadata['time_zone'];
      expect(convertEntry(e)).toMatchObject({
        ok: true,
        entry: {
          metadata: { time_zone: 'America/Los_Angeles' },
          data: { start_fmt_time: '2023-04-13T18:58:47-07:00', end_fmt_time: '2023-04-13T19:12:02-07:00' },
        },
      });
    },
  );

  it('When an input starts and ends at the same second, then it is formatted', () => {
    const data = { start_ts: 1681437527, end_ts: 1681437527 };
    expect(convertEntry(input('manual/trip_addition_input', data)).ok).toBe(true);
  });

  it('When an input is already in timeseries form with stale local times, then they are recomputed', () => {
    const data = { start_ts: 1681437527, end_ts: 1681438322, label: 'walk', start_fmt_time: 'x', end_local_dt: {} };
    expect(convertEntry(input('manual/mode_confirm', data))).toMatchObject({
      ok: true,
      entry: { data: { start_fmt_time: '2023-04-13T18:58:47-07:00', end_local_dt: { hour: 19, minute: 12 } } },
    });
  });
});

describe('manual inputs: one-time surveys', () => {
  it('When the demographic survey arrives, then its local time comes from data.ts and replaces the phone’s fmt_time', () => {
    const result = convertEntry(
      input('manual/demographic_survey', {
        ts: 1681446348.619,
        fmt_time: '2023-04-13T21:25:48.619-07:00',
        label: 'Answered',
        name: 'UserProfileSurvey',
        version: 1.2,
        xmlResponse: '<data/>',
        jsonDocResponse: { data: {} },
      }),
    );
    expect(result).toMatchObject({
      ok: true,
      entry: {
        dataTs: 1681446348.619,
        data: {
          ts: 1681446348.619,
          fmt_time: '2023-04-13T21:25:48.619000-07:00',
          local_dt: { year: 2023, month: 4, day: 13, hour: 21, minute: 25, second: 48, weekday: 3 },
          name: 'UserProfileSurvey',
          xmlResponse: '<data/>',
        },
      },
    });
    if (result.ok) expect(result.entry.data['start_fmt_time']).toBeUndefined();
  });

  it.each([undefined, 'yesterday', null, -5, 1e13])(
    'When the demographic survey has data.ts %s, then it is dead-lettered as e-mission does',
    (ts) => {
      expect(convertEntry(input('manual/demographic_survey', { ts, name: 'S' }))).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/manual\/demographic_survey has (no valid|an implausible) data\.ts/),
      });
    },
  );
});

describe('manual inputs that cannot be formatted are dead-lettered with a reason', () => {
  const START_END_KEYS = [
    'manual/mode_confirm',
    'manual/purpose_confirm',
    'manual/replaced_mode',
    'manual/trip_user_input',
    'manual/trip_addition_input',
    'manual/place_addition_input',
  ];
  const good = { start_ts: 1681437527, end_ts: 1681438322, label: 'walk' };
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['no start_ts', { end_ts: 1681438322, label: 'walk' }, /no valid data\.start_ts \(undefined\)/],
    ['no end_ts', { start_ts: 1681437527, label: 'walk' }, /no valid data\.end_ts \(undefined\)/],
    ['a start_ts string', { ...good, start_ts: '1681437527' }, /no valid data\.start_ts \("1681437527"\)/],
    ['an end_ts null', { ...good, end_ts: null }, /no valid data\.end_ts \(null\)/],
    ['a NaN start_ts', { ...good, start_ts: NaN }, /no valid data\.start_ts \(NaN\)/],
    ['an infinite end_ts', { ...good, end_ts: Infinity }, /no valid data\.end_ts \(Infinity\)/],
    ['a negative start_ts', { ...good, start_ts: -1 }, /no valid data\.start_ts \(-1\)/],
    ['milliseconds', { ...good, start_ts: 1681437527000, end_ts: 1681438322000 }, /no valid data\.start_ts/],
    ['an object end_ts', { ...good, end_ts: { $date: 1 } }, /no valid data\.end_ts/],
    ['end before start', { ...good, end_ts: 1681437526 }, /ends before it starts \(data\.end_ts 1681437526 < /],
  ];
  it.each(START_END_KEYS.flatMap((key) => cases.map(([what, data, reason]) => [key, what, data, reason] as const)))(
    'When %s has %s, then it fails',
    (key, _what, data, reason) => {
      const result = convertEntry(input(key, data));
      expect(result).toMatchObject({ ok: false, reason: expect.stringMatching(reason) });
      if (!result.ok) expect(result.reason.startsWith(key)).toBe(true);
    },
  );

  it.each(['manual/mode_confirm', 'manual/purpose_confirm', 'manual/replaced_mode'])(
    'When %s has a label that is not a string, then it fails',
    (key) => {
      for (const label of [undefined, null, 3, ['walk'], { value: 'walk' }, true]) {
        expect(convertEntry(input(key, { ...good, label }))).toMatchObject({
          ok: false,
          reason: expect.stringMatching(/has no string data\.label/),
        });
      }
    },
  );

  it('When a survey or note has no label, then it is still formatted (only MULTILABEL keeps the label alone)', () => {
    expect(convertEntry(input('manual/trip_user_input', { start_ts: 1, end_ts: 2, name: 'S' })).ok).toBe(true);
  });

  it('When a place survey arrives, then it is dead-lettered: e-mission has no formatter for it', () => {
    expect(convertEntry(input('manual/place_user_input', good))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/manual\/place_user_input has no formatter/),
    });
  });

  it('When a value in a reason is huge, then the reason stays short', () => {
    const result = convertEntry(input('manual/mode_confirm', { ...good, start_ts: 'x'.repeat(1_000_000) }));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason.length).toBeLessThan(200);
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'])(
    'When manual/%s arrives, then it is an unknown key, and as a label it is only a string',
    (name) => {
      expect(convertEntry(input(`manual/${name}`, good))).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/unknown key/),
      });
      expect(convertEntry(input('manual/mode_confirm', { ...good, label: name }))).toMatchObject({
        ok: true,
        entry: { data: { label: name } },
      });
    },
  );
});

describe('other manual keys keep their treatment', () => {
  it('When an incident arrives, then it gets local times from data.ts as before', () => {
    const data = { ts: 1681437527, stress: 100, loc: { type: 'Point', coordinates: [1, 2] } };
    expect(convertEntry(input('manual/incident', data))).toMatchObject({
      ok: true,
      entry: { dataTs: 1681437527, data: { stress: 100, fmt_time: '2023-04-13T18:58:47-07:00' } },
    });
  });

  it('When an unformatted manual key arrives without data.ts, then it is stored as sent', () => {
    expect(convertEntry(input('manual/something_new', { answer: 42 }))).toMatchObject({
      ok: true,
      entry: { dataTs: null, data: { answer: 42 } },
    });
  });
});

describe('manual inputs on anything', () => {
  it('When an input carries arbitrary times and labels, then it is formatted consistently or fails with a reason', () => {
    const ts = fc.oneof(
      fc.double({ min: 0, max: 2e9, noNaN: true }),
      fc.double(),
      fc.constantFrom(0, -1, 1e10, 1e13, NaN, Infinity),
      fc.string(),
      fc.constant(null),
    );
    const arbitraryInput = fc.record({
      key: fc.constantFrom(
        'manual/mode_confirm',
        'manual/purpose_confirm',
        'manual/replaced_mode',
        'manual/trip_user_input',
        'manual/trip_addition_input',
        'manual/place_addition_input',
        'manual/demographic_survey',
        'manual/place_user_input',
      ),
      platform: fc.constantFrom('android', 'ios'),
      time_zone: fc.constantFrom('America/Denver', 'Asia/Kathmandu', '', undefined, 'Mars/Olympus'),
      data: fc.record(
        {
          start_ts: ts,
          end_ts: ts,
          ts,
          label: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
          status: fc.constantFrom('ACTIVE', 'DELETED'),
          match_id: fc.uuid(),
        },
        { requiredKeys: [] },
      ),
    });
    fc.assert(
      fc.property(arbitraryInput, ({ key, platform, time_zone, data }) => {
        const e = input(key, data, { platform, time_zone });
        if (time_zone === undefined) delete e.metadata['time_zone'];
        const result = convertEntry(e);
        if (!result.ok) {
          expect(result.reason.length).toBeGreaterThan(5);
          return;
        }
        const d = result.entry.data;
        expect(key).not.toBe('manual/place_user_input');
        if (key === 'manual/demographic_survey') {
          expect(typeof d['fmt_time']).toBe('string');
          return;
        }
        expect(d['end_ts'] as number).toBeGreaterThanOrEqual(d['start_ts'] as number);
        for (const field of FORMATTED_INPUT_FIELDS) expect(typeof d[field]).not.toBe('undefined');
        // Nothing the phone sent is changed.
        for (const [k, v] of Object.entries(data)) expect(d[k]).toEqual(v);
      }),
      { numRuns: 3000 },
    );
  });
});
