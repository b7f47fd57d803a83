import fc from 'fast-check';
import type { UsercacheEntry } from '../../../shared/events/index.js';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { convertEntry } from './convert-entry.js';
import { isoLocal, localDate } from '../../../shared/time/local-time.js';
import { emissionFixturesDir } from '../../../test/helpers/fixtures.js';

const dataDir = emissionFixturesDir();

function pushed(raw: { metadata: Record<string, unknown>; data: Record<string, unknown> }): UsercacheEntry {
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

function sample(name: string) {
  return pushed(JSON.parse(readFileSync(join(dataDir, 'phone-wire-samples', name), 'utf8')));
}

describe('local time', () => {
  it('When a timestamp is formatted in a zone, then it matches arrow’s isoformat and LocalDate', () => {
    expect(isoLocal(1440688707.867, 'America/Los_Angeles')).toBe('2015-08-27T08:18:27.867000-07:00');
    expect(localDate(1440688707.867, 'America/Los_Angeles')).toEqual({
      year: 2015,
      month: 8,
      day: 27,
      hour: 8,
      minute: 18,
      second: 27,
      weekday: 3,
      timezone: 'America/Los_Angeles',
    });
    expect(isoLocal(1456134436.260307, 'America/Los_Angeles')).toBe('2016-02-22T01:47:16.260307-08:00');
  });
});

describe('convertEntry on the phones’ wire forms', () => {
  it('When an Android location arrives, then it gets a GeoJSON loc, heading from bearing, and local times', () => {
    const result = convertEntry(sample('android.location.json'));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.entry.data['loc']).toEqual({ type: 'Point', coordinates: [-104.9823262, 39.5974003] });
    expect(result.entry.data['heading']).toBe(98);
    expect(result.entry.data['bearing']).toBeUndefined();
    expect(result.entry.data['fmt_time']).toBe('2021-04-08T14:31:05-06:00');
    expect(result.entry.metadata['write_fmt_time']).toBe('2021-04-08T16:09:30.084000-06:00');
  });

  it('When an Android activity arrives, then its obfuscated fields become a motion activity', () => {
    const result = convertEntry(sample('android.activity.json'));
    expect(result.ok && result.entry).toMatchObject({
      key: 'background/motion_activity',
      data: { type: 5, confidence: 100 },
    });
  });

  it('When iOS flags arrive, then one flag maps to its mode and none maps to NONE', () => {
    expect(convertEntry(sample('ios.activity.json'))).toMatchObject({
      ok: true,
      entry: { data: { type: 3, confidence: 100 } },
    });
    expect(convertEntry(sample('ios.activity.none.json'))).toMatchObject({ ok: true, entry: { data: { type: 9 } } });
  });

  it('When transitions arrive, then their strings become the state and transition enums', () => {
    expect(convertEntry(sample('android.transition.json'))).toMatchObject({
      ok: true,
      entry: { data: { curr_state: 1, transition: 0 } },
    });
    expect(convertEntry(sample('ios.transition.json'))).toMatchObject({
      ok: true,
      entry: { data: { curr_state: 1, transition: 2 } },
    });
  });

  it('When the iOS location arrives, then its filter moves into data', () => {
    expect(convertEntry(sample('ios.location.json'))).toMatchObject({
      ok: true,
      entry: { data: { filter: 'distance', heading: -1 } },
    });
  });

  it.each(readdirSync(join(dataDir, 'phone-wire-samples')))('When %s is converted, then it succeeds', (name) => {
    expect(convertEntry(sample(name)).ok).toBe(true);
  });
});

describe('convertEntry failures are values with a reason', () => {
  const base = sample('android.location.json');
  it.each([
    [{ ...base, data: { ...base.data, ts: undefined } }, /no numeric data.ts/],
    [{ ...base, key: 'background/teleport' }, /unknown key/],
    [{ ...base, platform: 'windows' }, /unknown platform/],
    [{ ...sample('ios.location.json'), metadata: { platform: 'ios' } }, /no metadata.time_zone/],
    [{ ...sample('android.transition.json'), data: { currState: 'MY_FAKE_STATE' } }, /unknown state/],
    [
      {
        ...sample('android.transition.json'),
        data: { currState: 'local.state.start', transition: 'MY_FAKE_TRANSITION' },
      },
      /unknown transition/,
    ],
    [
      { ...sample('ios.activity.json'), data: { confidence: 'high', walking: true, cycling: true } },
      /two motion flags/,
    ],
  ])('When the entry is broken (%#), then the reason says why', (entry, reason) => {
    const result = convertEntry(entry as UsercacheEntry);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });
});

describe('convertEntry looks phone strings up in its own tables only', () => {
  const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];
  it.each(PROTOTYPE_NAMES)(
    'When %s is a state, a transition, a confidence or a key, then it is an unknown one',
    (name) => {
      const transition = sample('android.transition.json');
      const cases: [UsercacheEntry, RegExp][] = [
        [{ ...transition, data: { currState: name } }, /unknown state/],
        [{ ...transition, data: { currState: 'local.state.start', transition: name } }, /unknown transition/],
        [{ ...sample('ios.activity.json'), data: { confidence: name, walking: true } }, /unknown confidence/],
        [{ ...transition, key: name, metadata: { ...transition.metadata, key: name } }, /unknown key/],
      ];
      for (const [entry, reason] of cases) {
        const result = convertEntry(entry);
        expect(result, `${name}: ${reason}`).toMatchObject({ ok: false, reason: expect.stringMatching(reason) });
      }
    },
  );
});

describe('convertEntry on the real days (already in timeseries form)', () => {
  const days = readdirSync(join(dataDir, 'emission-real-days')).filter((f) => !f.includes('ground_truth'));
  it.each(days)('When every entry of %s is converted, then none fails and times are unchanged', (file) => {
    const entries = JSON.parse(readFileSync(join(dataDir, 'emission-real-days', file), 'utf8')) as {
      metadata: Record<string, unknown>;
      data: Record<string, unknown>;
    }[];
    for (const raw of entries) {
      const result = convertEntry(pushed(raw));
      if (!result.ok) throw new Error(`${file}: ${result.reason}`);
      if (raw.data['fmt_time'] && raw.data['ts']) expect(result.entry.data['local_dt']).toEqual(raw.data['local_dt']);
    }
  });
});

describe('convertEntry on anything', () => {
  it('When an entry carries arbitrary payloads and timestamps, then it never throws: it converts or says why not', () => {
    const ts = fc.oneof(fc.double(), fc.constantFrom(0, -1, 1e10, 1e13, 8.64e12, 1e300));
    const arbitraryEntry = fc.record({
      key: fc.constantFrom(
        'background/location',
        'background/filtered_location',
        'background/motion_activity',
        'background/activity',
        'statemachine/transition',
        'background/battery',
        'config/sensor_config',
        'manual/mode_confirm',
        'unknown/key',
      ),
      type: fc.constantFrom('sensor-data', 'message', 'rw-document'),
      writeTs: ts,
      platform: fc.constantFrom('android', 'ios', 'server', null, 'windows'),
      metadata: fc.record({ time_zone: fc.constantFrom('America/Denver', 'Mars/Olympus', '', undefined) }),
      data: fc.dictionary(
        fc.constantFrom('ts', 'latitude', 'longitude', 'agb', 'agc', 'type', 'transition', 'currState', 'confidence'),
        fc.oneof(ts, fc.string(), fc.constant(null), fc.boolean()),
      ),
    });
    fc.assert(
      fc.property(arbitraryEntry, (e) => {
        const result = convertEntry(e as UsercacheEntry);
        if (!result.ok) expect(result.reason.length).toBeGreaterThan(5);
        else expect(Number.isFinite(result.entry.writeTs)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});
