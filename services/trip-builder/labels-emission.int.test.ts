import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../test/helpers/gateway.js';
import { startInProcessPipeline, type InProcessPipeline } from '../../test/helpers/pipeline.js';
import { emissionFixturesDir } from '../../test/helpers/fixtures.js';
import { waitFor } from '../../test/helpers/test-env.js';
import { compositeTrips, pushEntries, userInput } from '../../test/helpers/trips.js';

/**
 * e-mission's own check `testCompositeTripIncrementalLastPlaceMatches`, through the real pipeline: day 1 pushed;
 * then both days' inputs (every place note on the open last place); then day 2 (notes redistributed). At each
 * stage, every one of e-mission's trips must have an Itinera trip within 60 s (start and end) that carries its
 * user_input and the ordered match_ids of its additions and of its end place's additions.
 */

const dir = join(emissionFixturesDir(), 'emission-labels');
const load = (name: string): any[] => JSON.parse(readFileSync(join(dir, name), 'utf8'));
/** As a phone pushes them: no server ids. */
const phone = (entries: any[]) => entries.map(({ metadata, data }) => ({ metadata, data }));

const USER = 'shankari-2023@example.org';
let pipeline: InProcessPipeline;
let gw: RunningGateway;

beforeAll(async () => {
  pipeline = await startInProcessPipeline();
  gw = pipeline.gw;
  expect((await gw.post('/profile/create', { user: USER })).status).toBe(200);
});
afterAll(async () => {
  await pipeline?.stop();
});

const composites = () => compositeTrips(gw, USER);

/** What e-mission's stage compares, for one trip: its labels and notes, and its end place's notes. */
function labelsOf(trip: any) {
  const userInput = Object.fromEntries(
    Object.entries(trip.data.user_input ?? {}).map(([k, v]: [string, any]) => [
      k,
      // A survey by when it was written: ids are the server's own.
      typeof v === 'string' ? v : v.metadata?.write_ts,
    ]),
  );
  return {
    user_input: userInput,
    additions: (trip.data.additions ?? []).map((a: any) => a.data.match_id),
    end_place_additions: (trip.data.end_confirmed_place?.data?.additions ?? []).map((a: any) => a.data.match_id),
  };
}

/** Itinera's trip within 60 s of each expected trip (start and end), or undefined. */
function pairUp(expected: any[], actual: any[]) {
  return expected.map((e) =>
    actual.find(
      (a) => Math.abs(a.data.start_ts - e.data.start_ts) <= 60 && Math.abs(a.data.end_ts - e.data.end_ts) <= 60,
    ),
  );
}

/**
 * Waits until the pipeline's labels settle (unchanged for 3 s), then compares the paired trips. Returns how many
 * trips e-mission expects and which of them (by start time) have no Itinera trip within 60 s.
 */
async function compareStage(stage: string, expectedFile: string, ignoreOrderOf: string[] = []) {
  const expected = load(expectedFile).sort((a, b) => a.data.start_ts - b.data.start_ts);
  let last = '';
  let since = 0;
  const actual = await waitFor(
    async () => {
      const trips = await composites();
      const now = JSON.stringify(trips.map(labelsOf));
      if (now !== last) {
        last = now;
        since = Date.now();
        return undefined;
      }
      return trips.length > 0 && Date.now() - since > 3000 ? trips : undefined;
    },
    90_000,
    `stage ${stage} to settle`,
  );
  const pairs = pairUp(expected, actual);
  const sorted = (o: ReturnType<typeof labelsOf>) =>
    Object.fromEntries(
      Object.entries(o).map(([k, v]) => [k, ignoreOrderOf.includes(k) && Array.isArray(v) ? [...v].sort() : v]),
    );
  pairs.forEach((trip, i) => {
    if (trip) expect(sorted(labelsOf(trip)), `trip ${i} of stage ${stage}`).toEqual(sorted(labelsOf(expected[i])));
  });
  const missing = expected.filter((_, i) => pairs[i] === undefined).map((e) => e.data.start_fmt_time as string);
  return { expected: expected.length, missing };
}

describe("labels on e-mission's own real data", () => {
  it('When a day, then its inputs, then the next day arrive, then the trips carry the labels e-mission expects at each stage', async () => {
    await pushEntries(gw, USER, phone(load('shankari_2023-04-13.json')));
    const first = await compareStage(
      '1 (before inputs)',
      'shankari_2023-04-13.before-user-inputs.alt.expected_composite_trips.json',
    );
    expect(first).toEqual({ expected: 5, missing: [] });

    await pushEntries(gw, USER, [
      ...phone(load('shankari_2023-04-13.user_inputs.json')),
      ...phone(load('shankari_2023-04-14.user_inputs.json')),
    ]);
    // e-mission appends notes to the open last place in arrival order; Itinera matches afresh and orders by start
    // time, as e-mission itself does once the place closes (stage 3): the same notes, maybe in another order.
    const second = await compareStage(
      '2 (inputs, open last place)',
      'shankari_2023-04-13.all-match-last-place.alt.expected_composite_trips.json',
      ['end_place_additions'],
    );
    expect(second).toEqual({ expected: 5, missing: [] });

    await pushEntries(gw, USER, phone(load('shankari_2023-04-14.json')));
    const third = await compareStage(
      '3 (next day, notes redistributed)',
      'shankari_2023-04-13.retained-last-place.alt.expected_composite_trips.json',
    );
    expect(third).toEqual({ expected: 8, missing: [] });
  });
});

describe("untracked time on e-mission's own real data", () => {
  it('When a day with untracked time arrives, then its composites hold the untracked period between the trips, as e-mission expects', async () => {
    const user = 'jack-2023@example.org';
    expect((await gw.post('/profile/create', { user })).status).toBe(200);
    await pushEntries(gw, user, phone(load('jack_untracked_time_2023-03-12.json')));
    const expected = load('jack_untracked_time_2023-03-12.expected_composite_trips.json').sort(
      (a, b) => a.data.start_ts - b.data.start_ts,
    );
    let last = '';
    let since = 0;
    const actual = await waitFor(
      async () => {
        const now = await compositeTrips(gw, user);
        const shape = JSON.stringify(now.map((c) => [c.metadata.origin_key, c.data.start_ts, c.data.end_ts]));
        if (shape !== last) {
          last = shape;
          since = Date.now();
          return undefined;
        }
        return now.length > 0 && Date.now() - since > 3000 ? now : undefined;
      },
      90_000,
      'the untracked day to settle',
    );
    const pairs = pairUp(expected, actual);
    expect(
      expected.filter((_, i) => pairs[i] === undefined).map((e) => e.data.start_fmt_time),
      "e-mission's composites with none of Itinera's within 60 s",
    ).toEqual([]);
    expect(expected).toHaveLength(4);
    const untracked = expected.findIndex((e) => e.metadata.origin_key === 'analysis/confirmed_untracked');
    const mine = pairs[untracked];
    expect(mine, 'the untracked period, within 60 s of e-mission').toBeDefined();
    expect(mine.metadata.origin_key).toBe('analysis/confirmed_untracked');
    expect(mine.data.sections).toEqual([]);
    expect(mine.data.locations).toEqual([]);
    expect(mine.data.distance).toBeCloseTo(expected[untracked].data.distance, -2);
    expect(mine.data.user_input).toEqual({});
    // Its places are those of the trips around it: it leaves the place the trip before reached, and reaches the one
    // the trip after leaves, each the same object (same id) in both composites.
    const before = actual[actual.indexOf(mine) - 1];
    const after = actual[actual.indexOf(mine) + 1];
    expect(mine.data.start_confirmed_place._id).toEqual(before.data.end_confirmed_place._id);
    expect(mine.data.end_confirmed_place._id).toEqual(after.data.start_confirmed_place._id);
    expect(mine.data.start_confirmed_place.data.enter_ts).toBe(before.data.end_ts);
    expect(mine.data.end_confirmed_place.data.exit_ts).toBe(after.data.start_ts);
    pairs.forEach((p, i) => expect(p.metadata.origin_key, `composite ${i}`).toBe(expected[i].metadata.origin_key));
    // The app's trip count and the aggregate leave untracked time out.
    const profile = await gw.post('/profile/get', { user });
    expect(profile.body.total_trips).toBe(actual.length - 1);

    // The app labels an untracked period like a trip (path B): the label lands on the period, not on its neighbours.
    const span = { start: mine.data.start_ts, end: mine.data.end_ts };
    await pushEntries(gw, user, [userInput('manual/mode_confirm', span, { label: 'car' })]);
    const labelled = await waitFor(
      async () =>
        (await compositeTrips(gw, user)).find(
          (c) => c.metadata.origin_key === 'analysis/confirmed_untracked' && c.data.user_input.mode_confirm === 'car',
        ),
      30_000,
      'the label on the untracked period',
    );
    expect(labelled._id).toEqual(mine._id);
    const others = (await compositeTrips(gw, user)).filter((c) => c._id.$oid !== mine._id.$oid);
    expect(others.map((c) => c.data.user_input)).toEqual(others.map(() => ({})));
  });
});
