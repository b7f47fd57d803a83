import { describe, expect, it } from 'vitest';
import { exportUser, type ExportRequest } from './export-user.js';
import { keyedUserId } from './keyed-user-id.js';
import type { ExportSources } from './stores.js';
import type { CompositeTrip } from './domain/composite-trip.js';
import type { DayQuality } from '../../shared/quality/day-quality.js';
import { parse } from 'fast-csv';

const USER = '88efca95-6320-42bc-94d4-7e53a600fe0c';
const home = { lat: 37.39, lon: -122.08 };
const work = { lat: 37.42, lon: -122.14 };
const point = ({ lat, lon }: { lat: number; lon: number }) => ({ type: 'Point', coordinates: [lon, lat] });
const away = (k: number) => ({ lat: 37.4 + k * 0.001, lon: -122.1 });

/** Trips back and forth between home and work, each with a location at both ends and one in between. */
const trips: CompositeTrip[] = Array.from({ length: 4 }, (_, i) => {
  const [from, to] = i % 2 === 0 ? [home, work] : [work, home];
  const locations = [from, away(i), to].map((p, k) => ({ data: { ts: i * 100 + k, loc: point(p) } }));
  return {
    _id: { $oid: `t${i}` },
    user_id: { $uuid: USER.replace(/-/g, '') },
    data: {
      start_ts: i * 100,
      end_ts: i * 100 + 2,
      start_fmt_time: `1970-01-01T00:0${i}:00+00:00`,
      start_loc: point(from),
      end_loc: point(to),
      locations,
    },
  } as CompositeTrip;
});

const epochDay: DayQuality = {
  localDate: '1970-01-01',
  score: 0.75,
  considered: 96,
  quarters: { located: 4, at_place: 68, tracking_off: 24, no_locations: 0, no_data: 0 },
  hoursWithLocations: 1,
  gaps: [{ from: '18:00', to: '24:00', reason: 'tracking_off' }],
  strip: 'P'.repeat(68) + 'L'.repeat(4) + 'T'.repeat(24),
  battery: { pct: 40, ts: 500 },
  trips: 4,
  labelledTrips: 1,
};

const raw = [home, away(1), work].map((p, i) =>
  JSON.stringify({
    user_id: { $uuid: USER.replace(/-/g, '') },
    metadata: { key: 'background/location', write_ts: i },
    data: { latitude: p.lat, longitude: p.lon, user_id: USER },
  }),
);
raw.push(JSON.stringify({ user_id: { $uuid: USER }, metadata: { key: 'background/battery', write_ts: 9 }, data: {} }));

const sources: ExportSources = {
  async *rawEntries() {
    yield* raw;
  },
  async *compositeTrips() {
    yield* trips;
  },
  async dayQuality(_userId, from, to) {
    return from <= '1970-01-01' && to >= '1970-01-01' ? [epochDay] : [];
  },
};

async function text(request: Omit<ExportRequest, 'userId' | 'range'>): Promise<string> {
  let out = '';
  const { body } = exportUser(sources, { userId: USER, range: { fromTs: 0, toTs: 1000 }, ...request });
  for await (const chunk of body) out += String(chunk);
  return out;
}

const deidentify = { secret: 's3cret', radiusM: 200 };

describe('exportUser', () => {
  it('passes raw entries through as lines, and names the format', async () => {
    const exported = exportUser(sources, { format: 'ndjson', userId: USER, range: { fromTs: 0, toTs: 1 } });
    expect(exported.contentType).toBe('application/x-ndjson; charset=utf-8');
    expect(exported.fileExtension).toBe('ndjson');
    expect(await text({ format: 'ndjson' })).toBe(raw.map((r) => `${r}\n`).join(''));
  });

  it('de-identified NDJSON: no location near home or work, no real user id anywhere', async () => {
    const lines = (await text({ format: 'ndjson', deidentify }))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.metadata.write_ts)).toEqual([1, 9]);
    const pseudonym = keyedUserId('s3cret', USER);
    expect(lines.map((l) => l.user_id.$uuid)).toEqual([pseudonym, pseudonym]);
    expect(lines[0].data.user_id).toBe(pseudonym);
    expect(JSON.stringify(lines)).not.toMatch(/88efca95/i);
  });

  it('de-identified trips: only the points away from the two frequent places remain', async () => {
    const collection = JSON.parse(await text({ format: 'geojson', deidentify }));
    expect(collection.features).toHaveLength(4);
    for (const [i, feature] of collection.features.entries()) {
      // One location left of three, and neither end: the geometry is the point in between.
      expect(feature.geometry).toEqual({ type: 'Point', coordinates: [away(i).lon, away(i).lat] });
    }
  });

  it('uses the places it is given instead of finding them', async () => {
    const collection = JSON.parse(
      await text({ format: 'geojson', deidentify: { ...deidentify, places: [{ lat: 0, lon: 0 }] } }),
    );
    expect(collection.features[0].geometry.coordinates).toHaveLength(3);
  });

  it('writes the pseudonym in the CSVs, the real id without de-identification', async () => {
    const deidentified = await text({ format: 'trips-csv', deidentify });
    expect(deidentified).toContain(keyedUserId('s3cret', USER));
    expect(deidentified).not.toContain(USER);
    expect(await text({ format: 'sections-csv' })).toMatch(/^user_id,/);
    expect(await text({ format: 'trips-csv' })).toContain(USER);
  });

  it('writes each trip’s day score, and one row per day with its score and what makes it', async () => {
    const rows = async (csv: string) => {
      const out: Record<string, string>[] = [];
      await new Promise((resolve, reject) =>
        parse({ headers: true })
          .on('data', (r) => out.push(r))
          .on('end', resolve)
          .on('error', reject)
          .end(csv),
      );
      return out;
    };
    expect((await rows(await text({ format: 'trips-csv' }))).map((r) => r['day_score'])).toEqual([
      '0.75',
      '0.75',
      '0.75',
      '0.75',
    ]);
    expect(await rows(await text({ format: 'days-csv', deidentify }))).toEqual([
      expect.objectContaining({
        user_id: keyedUserId('s3cret', USER),
        local_date: '1970-01-01',
        score: '0.75',
        tracking_off_quarters: '24',
        gaps_json: JSON.stringify(epochDay.gaps),
        labelled_trips: '1',
      }),
    ]);
  });

  it('writes one track per trip in GPX', async () => {
    expect((await text({ format: 'gpx' })).match(/<trk>/g)).toHaveLength(4);
  });
});
