import { Readable } from 'node:stream';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MotionType } from '../../shared/events/emission-enums.js';
import type { RunningGateway } from '../../test/helpers/gateway.js';
import { runCli, startInProcessPipeline, type InProcessPipeline } from '../../test/helpers/pipeline.js';
import { DAY_OF, loadRealDay, phoneEntries } from '../../test/helpers/real-days.js';
import type { TestEnv } from '../../test/helpers/test-env.js';
import { compositeTrips, pushEntries, settledTrips } from '../../test/helpers/trips.js';
import { toOsmXml } from '../../test/helpers/trip-builder/transit-fixture.js';
import { indexOsmExtract, type OsmElement, predictModeWithStops, sectionForInference } from './domain/modes/index.js';
import { toObservations } from './domain/observations.js';
import { buildTrips } from './domain/timeline/build-trips.js';

/**
 * Modes on a real day: a small OpenStreetMap extract with one bus line whose stops stand at the two ends of one of
 * the day's drives is imported (`transit-import`) before the day is pushed. That drive comes out as BUS in the
 * composite trip, its prediction and the user's metrics (and so does the drive back between the same places); the
 * day's other drives, with no stop near, stay CAR.
 */
const DAY = 'shankari_2015-aug-27';
const TRIPS = 8;

let pipeline: InProcessPipeline;
let env: TestEnv;
let gw: RunningGateway;

const trips = buildTrips(toObservations(loadRealDay(DAY)), undefined).trips;
const drives = trips.flatMap((t) => t.sections).filter((s) => s.mode === MotionType.IN_VEHICLE);
const bus = drives[0]!;

/** Bus stops 20 m from the drive's ends (both members of one route relation), and a stop nowhere near. */
function elements(): OsmElement[] {
  const near = ([lon, lat]: readonly [number, number], id: number): OsmElement => ({
    type: 'node',
    id,
    lon: lon + 0.0002,
    lat,
    tags: { highway: 'bus_stop', public_transport: 'platform', name: `stop ${id}` },
  });
  return [
    near(bus.startLoc, 1),
    near(bus.endLoc, 2),
    { type: 'node', id: 3, lon: 0, lat: 0, tags: { highway: 'bus_stop' } },
    {
      type: 'relation',
      id: 77,
      members: [1, 2].map((ref) => ({ type: 'node' as const, ref, role: 'stop' })),
      tags: { type: 'route', route: 'bus', ref: '22', network: 'VTA' },
    },
  ];
}

/** What the rule engine makes of each drive given the extract's stops, asked of an in-memory index of them. */
async function expectedModes(xml: string): Promise<string[]> {
  const index = await indexOsmExtract({ format: 'xml', open: () => Readable.from([Buffer.from(xml)]) });
  return drives.map((d) => {
    const input = sectionForInference(d);
    return predictModeWithStops(input, index.findStopsNear(input.startLoc), index.findStopsNear(input.endLoc)).mode;
  });
}

beforeAll(async () => {
  pipeline = await startInProcessPipeline();
  ({ env, gw } = pipeline);
});
afterAll(async () => {
  await pipeline?.stop();
});

describe('modes', () => {
  it('When a transit extract covers one of a day’s drives, then its bus rides are BUS in the composite trips, their predictions and the metrics; the other drives are CAR', async () => {
    expect(drives.length).toBeGreaterThan(1);
    const file = join(mkdtempSync(join(tmpdir(), 'itinera-osm-')), 'town.osm');
    writeFileSync(file, toOsmXml(elements()));
    expect(await runCli(env, ['transit-import', file])).toContain('imported 3 stops served by 1 routes');

    const user = 'modes@example.org';
    expect((await gw.post('/profile/create', { user })).status).toBe(200);
    await pushEntries(gw, user, phoneEntries(DAY));
    await settledTrips(gw, user, DAY_OF[DAY], TRIPS);
    const sections = (await compositeTrips(gw, user)).flatMap((t) => t.data.sections);
    const busSection = sections.find((s) => s.data.start_ts === bus.startTs);
    expect(busSection.metadata.key).toBe('analysis/inferred_section');
    expect([busSection.data.sensed_mode_str, busSection.data.sensed_mode]).toEqual(['BUS', 3]);
    // The drive back between the same two places is a bus ride too; the day's other drives have no stop near.
    const expected = await expectedModes(toOsmXml(elements()));
    expect(expected).toContain('CAR');
    expect(drives.map((d) => sections.find((s) => s.data.start_ts === d.startTs)?.data.sensed_mode_str)).toEqual(
      expected,
    );

    const predictions = await gw.post('/datastreams/find_entries/timestamp', {
      user,
      key_list: ['inference/prediction'],
      start_time: bus.startTs - 1,
      end_time: bus.startTs + 1,
      key_time: 'data.start_ts',
    });
    expect(predictions.body.phone_data.map((p: any) => p.data.predicted_mode_map)).toEqual([{ BUS: 1 }]);

    const metrics = await gw.post('/result/metrics/timestamp', {
      user,
      freq: 'D',
      start_time: trips[0]!.startTs - 86_400,
      end_time: trips[trips.length - 1]!.endTs + 86_400,
      metric_list: ['count'],
      is_return_aggregate: false,
    });
    const counts = (metrics.body.user_metrics[0] as Record<string, number>[]).reduce(
      (sum, day) => sum + (day['BUS'] ?? 0),
      0,
    );
    expect(counts).toBe(expected.filter((m) => m === 'BUS').length);
  });
});
