import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningConverter } from '../../services/converter/run-converter.js';
import { matches } from '../helpers/evaluate-trips.js';
import type { RunningTripBuilder } from '../../services/trip-builder/run-trip-builder.js';
import { startGateway, type RunningGateway } from '../helpers/gateway.js';
import { startConverter, startTripBuilder } from '../helpers/pipeline.js';
import { DAY_OF, loadGroundTruth, phoneEntries } from '../helpers/real-days.js';
import { emissionFixturesDir } from '../helpers/fixtures.js';
import { createTestEnv, waitFor, type TestEnv } from '../helpers/test-env.js';
import { settledTrips } from '../helpers/trips.js';
import { createProgramManager } from '../../shared/programs/manage-programs.js';
import { createProgramConfigsTable } from '../../shared/tables/index.js';

/**
 * The unmodified e-mission app's calls, in the order it makes them (emission-client.md §2–§6 and the checklist in
 * §8), with the phones' own wire samples and a real day: what a study moving to Itinera depends on.
 */

const DAY = 'shankari_2015-aug-27';
const TOKEN = 'nrelop_study_default_4j7sd9';
/** The study's deployment configuration, as OpenPATH's repository holds one: phones make their own tokens. */
const STUDY_CONFIG = {
  url_abbreviation: 'study',
  version: 2,
  min_app_version: '1.9.0',
  intro: { program_or_study: 'study', translated_text: { en: { deployment_name: 'A study' } } },
  survey_info: { 'trip-labels': 'MULTILABEL' },
  opcode: { autogen: true },
};

let env: TestEnv;
let gw: RunningGateway;
let converter: RunningConverter;
let builder: RunningTripBuilder;

beforeAll(async () => {
  env = await createTestEnv();
  await createProgramManager(createProgramConfigsTable(env.cql)).create({
    program: 'study',
    document: JSON.stringify(STUDY_CONFIG),
    by: 'operator@itinera.test',
  });
  gw = await startGateway(env);
  converter = await startConverter(env);
  builder = await startTripBuilder(env);
});
afterAll(async () => {
  await builder?.stop();
  await converter?.stop();
  await gw?.close();
  await env?.dispose();
});

/** The wire samples as the phone sends them: no `_id`, no `user_id` (the server adds both). */
function wireSamples(): { metadata: Record<string, any>; data: Record<string, any> }[] {
  const dir = join(emissionFixturesDir(), 'phone-wire-samples');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const { metadata, data } = JSON.parse(readFileSync(join(dir, f), 'utf8'));
      return { metadata, data };
    });
}

/** The app posts to its connectUrl; some builds leave a doubled slash after the host. */
const call = (path: string, body: Record<string, unknown> = {}) =>
  gw.post(`/${path}`, { user: TOKEN, ...body }, { 'content-type': 'application/json; charset=UTF-8' });

describe('the e-mission phone app against Itinera', () => {
  it('When the app registers, uploads the wire samples and a real day, then syncs and opens its screens, every call answers 200 with the shapes it parses, and the processed trips match the ground truth', async () => {
    // Login: /profile/create must succeed, or the app wipes itself; then it records its client details.
    const created = await call('/profile/create');
    expect(created.status).toBe(200);
    expect(created.body.uuid).toMatch(/^[0-9a-f-]{36}$/);
    const uuid = created.body.uuid as string;
    const updated = await call('/profile/update', {
      update_doc: { client_app_version: '1.9.6', client_os_version: '14' },
    });
    expect(updated.status).toBe(200);
    expect(typeof updated.body).toBe('object');
    const profile = await call('/profile/get');
    expect(profile.body.user_id).toEqual({ $uuid: uuid.replace(/-/g, '') });
    expect(profile.body.client_app_version).toBe('1.9.6');

    // Upload: the native plugin's batches carry the phone's configuration and app versions; a lost answer means
    // the batch comes again. The phone holds version 1 of the study's configuration: the first answer hands it
    // version 2, which it installs (upgradeDeploymentConfig) and names from then on, so later answers are empty.
    const samples = wireSamples();
    const day = phoneEntries(DAY);
    const outdated = await call('/usercache/put', {
      phone_to_server: samples,
      deployment_config_version: 1,
      app_version: '1.9.6',
    });
    expect(outdated.status).toBe(200);
    expect(outdated.body).toEqual({ deployment_config: STUDY_CONFIG });
    const extras = { deployment_config_version: 2, app_version: '1.9.6' };
    for (let i = 0; i < day.length; i += 2000) {
      const batch = day.slice(i, i + 2000);
      const put = await call('/usercache/put', { phone_to_server: batch, ...extras });
      expect(put.status).toBe(200);
      expect(put.body).toEqual({});
    }
    expect((await call('/usercache/put', { phone_to_server: samples, ...extras })).status).toBe(200);

    // The raw entries are readable at once through find_entries (the app draws unprocessed trips from them).
    const rawTransitions = await waitFor(async () => {
      const res = await call('/datastreams/find_entries/timestamp', {
        key_list: ['statemachine/transition'],
        start_time: 1436821510,
        end_time: 1436821511,
        key_time: 'metadata.write_ts',
      });
      return res.body.phone_data.length > 0 ? res.body.phone_data : undefined;
    });
    expect(rawTransitions).toHaveLength(1);
    expect(rawTransitions[0].metadata.write_ts).toBe(1436821510.445);
    expect(rawTransitions[0].user_id).toEqual({ $uuid: uuid.replace(/-/g, '') });
    expect(rawTransitions[0]._id.$oid).toMatch(/^[0-9a-f]{24}$/);
    for (const sample of samples) {
      const res = await call('/datastreams/find_entries/timestamp', {
        key_list: null,
        start_time: sample.metadata['write_ts'] - 0.001,
        end_time: sample.metadata['write_ts'] + 0.001,
      });
      // Re-sent twice, each sample is there once: the upsert identity is (user, type, key, write_ts).
      expect(res.body.phone_data, sample.metadata['key']).toHaveLength(1);
    }

    // Processing: the trips appear on getTrips (legacy diary) and the pipeline says how far it got.
    const truth = loadGroundTruth(DAY);
    const trips = await settledTrips(gw, TOKEN, DAY_OF[DAY], truth.length);
    expect(trips).toHaveLength(truth.length);
    const complete = await call('/pipeline/get_complete_ts');
    expect(complete.body.complete_ts).toBe(trips[trips.length - 1].properties.end_ts);
    const range = await call('/pipeline/get_range_ts');
    expect(range.status).toBe(200);
    expect(range.body.start_ts).toBe(trips[0].properties.start_ts);
    expect(range.body.end_ts).toBe(complete.body.complete_ts);

    // Sync: the documents are the complete current set, each a full document entry.
    const pulled = await call('/usercache/get');
    const keys = pulled.body.server_to_phone.map((d: any) => d.metadata.key);
    expect(keys).toContain(`diary/trips-${DAY_OF[DAY]}`);
    for (const d of pulled.body.server_to_phone) {
      expect(d.metadata.type).toBe('document');
      expect(typeof d.metadata.write_ts).toBe('number');
    }

    // Label screen (current app): composite trips of the range, a week at a time, on data.end_ts.
    const composites = await call('//datastreams/find_entries/timestamp', {
      key_list: ['analysis/composite_trip'],
      start_time: range.body.end_ts - 7 * 86_400,
      end_time: range.body.end_ts,
      key_time: 'data.end_ts',
    });
    expect(composites.status).toBe(200);
    const listed = composites.body.phone_data.map((e: any) => ({
      ...e.data,
      _id: e._id,
      key: e.metadata.key,
      origin_key: e.metadata.origin_key || e.metadata.key,
    }));
    // The label screen lists trips and untracked periods (the app's isTrip); getTrips has the trips only.
    const unpacked = listed.filter((t: any) => t.origin_key === 'analysis/confirmed_trip');
    expect(unpacked.map((t: any) => t._id.$oid)).toEqual(trips.map((t: any) => t.id));
    listed.forEach((t: any, i: number) => {
      if (t.origin_key !== 'analysis/confirmed_untracked') return;
      // Untracked time lies between two trips: from where the user was last seen to where they reappeared.
      expect(t.sections).toEqual([]);
      expect(t.start_ts).toBe(listed[i - 1].end_ts);
      expect(t.end_ts).toBe(listed[i + 1].start_ts);
    });
    // Each composite trip is one of e-mission's trips for the day (start and end within 60 s and 100 m).
    const withoutTwin = unpacked.filter((t: any) => {
      const found = {
        startTs: t.start_ts,
        endTs: t.end_ts,
        startLoc: t.start_loc.coordinates,
        endLoc: t.end_loc.coordinates,
      };
      const twin = truth.find((r) =>
        matches(found, {
          startTs: r.properties['start_ts'],
          endTs: r.properties['end_ts'],
          startLoc: r.properties['start_loc'].coordinates,
          endLoc: r.properties['end_loc'].coordinates,
          modes: [],
        }),
      );
      return twin === undefined;
    });
    expect(withoutTwin.map((t: any) => t.start_fmt_time)).toEqual([]);
    for (const t of unpacked) {
      expect(t.key.endsWith('trip')).toBe(true);
      expect(t.origin_key).toBe('analysis/confirmed_trip');
      expect(t.sections.length).toBeGreaterThan(0);
      expect(t.sections.every((s: any) => typeof s.data.sensed_mode_str === 'string')).toBe(true);
      expect(t.locations.every((l: any) => Array.isArray(l.data.loc.coordinates))).toBe(true);
      expect(t.end_confirmed_place._id.$oid).toMatch(/^[0-9a-f]{24}$/);
    }
    // The v3.x label screen's map: recreated locations of one trip, at most 100.
    const first = unpacked[0];
    const track = await call('/datastreams/find_entries/timestamp', {
      key_list: ['analysis/recreated_location'],
      start_time: first.start_ts,
      end_time: first.end_ts,
      key_time: 'data.ts',
      max_entries: 100,
    });
    expect(track.body.phone_data.length).toBeGreaterThan(0);
    expect(track.body.phone_data.length).toBeLessThanOrEqual(100);

    // Dashboard: user metrics by timestamp (legacy), and the group cards (current), neither an error.
    const metrics = await call('/result/metrics/timestamp', {
      freq: 'D',
      start_time: range.body.start_ts - 86_400,
      end_time: range.body.end_ts,
      metric_list: ['duration', 'mean_speed', 'count', 'distance'],
      is_return_aggregate: false,
    });
    expect(metrics.status).toBe(200);
    expect(metrics.body.user_metrics).toHaveLength(4);
    const counted = metrics.body.user_metrics[2].reduce(
      (n: number, bin: Record<string, unknown>) =>
        n + Object.entries(bin).reduce((m, [k, v]) => (/^[A-Z_]+$/.test(k) ? m + Number(v) : m), 0),
      0,
    );
    expect(counted).toBe(
      trips.reduce((n: number, t: any) => n + t.features.filter((f: any) => f.type === 'FeatureCollection').length, 0),
    );
    const group = await gw.post('/result/metrics/yyyy_mm_dd', {
      freq: 'D',
      start_time: '2015-08-20',
      end_time: '2015-08-27',
      metric_list: { distance: ['mode_confirm'], duration: ['mode_confirm'], count: ['mode_confirm'] },
      is_return_aggregate: true,
      aggregate: true,
    });
    expect(group.status).toBe(200);
    expect(group.body).toEqual({ distance: [], duration: [], count: [] });
  }, 300_000);
});
