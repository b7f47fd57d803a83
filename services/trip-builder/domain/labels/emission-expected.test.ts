import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emissionFixturesDir } from '../../../../test/helpers/fixtures.js';
import { readUserInputEntry, type UserInputEntry } from './input-entry.js';
import {
  applyIncomingMatch,
  type ConfirmedElement,
  matchIncomingInput,
} from '../../../../test/helpers/trip-builder/match-incoming.js';
import { type ElementLabels, matchElement, matchTimeline } from './match-timeline.js';
import { indexInputs } from './input-index.js';

/**
 * e-mission's own expectations (TestPipelineRealData.testCompositeTripIncrementalLastPlaceMatches), replayed as
 * they happened: day 1 built without inputs (path A); both days' inputs pushed and matched one by one in write order
 * (path B); day 2 built, the open last place recomputed and the new elements matched (path A). After each stage
 * every trip's and place's `user_input` and ordered `additions` match ids equal e-mission's composite trips.
 * Its trips and places are the timeline here: segmentation is not under test.
 */
const dir = join(emissionFixturesDir(), 'emission-labels');
const load = (name: string): any[] => JSON.parse(readFileSync(join(dir, name), 'utf8'));
const STAGES = {
  before: load('shankari_2023-04-13.before-user-inputs.alt.expected_composite_trips.json'),
  allMatchLastPlace: load('shankari_2023-04-13.all-match-last-place.alt.expected_composite_trips.json'),
  retainedLastPlace: load('shankari_2023-04-13.retained-last-place.alt.expected_composite_trips.json'),
};

const inputs: UserInputEntry[] = ['shankari_2023-04-13.user_inputs.json', 'shankari_2023-04-14.user_inputs.json']
  .flatMap(load)
  .map(readUserInputEntry)
  .filter((e): e is UserInputEntry => e !== undefined);

function placeOf(entry: any): ConfirmedElement {
  return { kind: 'place', enterTs: entry.data.enter_ts, exitTs: entry.data.exit_ts, writeTs: entry.metadata.write_ts };
}

/** e-mission's composites as the timeline: the first start place, then each move and its end place. */
function timelineOf(composites: any[]): ConfirmedElement[] {
  return composites.flatMap((c, i): ConfirmedElement[] => [
    ...(i === 0 ? [placeOf(c.data.start_confirmed_place)] : []),
    {
      kind: c.metadata.origin_key === 'analysis/confirmed_untracked' ? 'untracked' : 'trip',
      startTs: c.data.start_ts,
      endTs: c.data.end_ts,
      writeTs: c.metadata.write_ts,
    },
    placeOf(c.data.end_confirmed_place),
  ]);
}

/** What is compared: survey ids rather than whole entries, and the note match ids in order. */
function summary(labels: { user_input: Record<string, unknown>; additions: any[] }) {
  return {
    user_input: Object.fromEntries(
      Object.entries(labels.user_input).map(([k, v]) => [k, typeof v === 'string' ? v : (v as any)._id.$oid]),
    ),
    additions: labels.additions.map((a) => a.data.match_id),
  };
}

/**
 * Each trip, the day's first place, and every other place through its copy as the end place of the trip before
 * it: e-mission updates that copy when a note arrives and leaves the next trip's `start_confirmed_place` stale
 * (labels-and-modes.md §3), except for the recomputed last place.
 */
function expectStage(labels: readonly ElementLabels[], composites: any[]) {
  expect(labels).toHaveLength(2 * composites.length + 1);
  expect(summary(labels[0]!), 'first place').toEqual(summary(composites[0].data.start_confirmed_place.data));
  composites.forEach((c, i) => {
    expect(summary(labels[2 * i + 1]!), `trip ${i}`).toEqual(summary(c.data));
    expect(summary(labels[2 * i + 2]!), `end place of trip ${i}`).toEqual(summary(c.data.end_confirmed_place.data));
  });
}

function replayStages() {
  const day1 = timelineOf(STAGES.before);
  const stage1 = matchTimeline(day1, []);

  const stage2 = [...stage1];
  const byWriteTime = [...inputs].sort((a, b) => a.metadata.write_ts - b.metadata.write_ts);
  for (const input of byWriteTime) {
    const match = matchIncomingInput(input, day1);
    if (match.action !== 'none') stage2[match.index] = applyIncomingMatch(stage2[match.index]!, match);
  }

  // Day 2: the elements before the open last place keep what they have; that place and all after it are built.
  const days12 = timelineOf(STAGES.retainedLastPlace);
  const reopened = day1.length - 1;
  const index = indexInputs(inputs);
  const stage3 = days12.map((_, i) => (i < reopened ? stage2[i]! : matchElement(days12, i, index)));
  return { day1, days12, stage1, stage2, stage3 };
}

describe("e-mission's expected labels for shankari_2023-04-13/14, replayed stage by stage", () => {
  const replay = replayStages();

  it('day 2 keeps day 1 as it was (same trips and places; only write times differ)', () => {
    const bounds = (elements: ConfirmedElement[]) => elements.map(({ writeTs: _, ...rest }) => rest);
    expect(bounds(replay.days12.slice(0, replay.day1.length - 1))).toEqual(bounds(replay.day1.slice(0, -1)));
  });
  it('stage 1, before inputs: nothing labelled', () => {
    expectStage(replay.stage1, STAGES.before);
  });
  it('stage 2, inputs matched as they come: every later place note on the open last place, in arrival order', () => {
    expectStage(replay.stage2, STAGES.allMatchLastPlace);
    expect(replay.stage2[replay.stage2.length - 1]!.additions).toHaveLength(15);
  });
  it('stage 3, day 2 built: the notes redistributed to their places, sorted by start time', () => {
    expectStage(replay.stage3, STAGES.retainedLastPlace);
  });
});

describe('the same days matched from scratch (a rebuild of both days)', () => {
  const timeline = timelineOf(STAGES.retainedLastPlace);
  const labels = matchTimeline(timeline, inputs);

  it('gives every trip and every place but the first what e-mission has after stage 3', () => {
    const expected = STAGES.retainedLastPlace;
    expected.forEach((c, i) => {
      expect(summary(labels[2 * i + 1]!), `trip ${i}`).toEqual(summary(c.data));
      expect(summary(labels[2 * i + 2]!), `end place of trip ${i}`).toEqual(summary(c.data.end_confirmed_place.data));
    });
  });

  it('gives the first place (no enter time, so S = 0) the place notes from before the first trip', () => {
    // e-mission built that place before any input existed, and path B never reaches a place without enter time:
    // its copy stays empty. Matched by the rules, it takes the notes given before the user's first trip.
    const firstTripStart: number = STAGES.retainedLastPlace[0].data.start_ts;
    const before = inputs
      .filter((e) => e.metadata.key === 'manual/place_addition_input' && e.data.start_ts < firstTripStart)
      .sort((a, b) => a.data.start_ts - b.data.start_ts || (a._id.$oid < b._id.$oid ? -1 : 1))
      .map((e) => e.data.match_id);
    expect(before).toHaveLength(10);
    expect(summary(labels[0]!).additions).toEqual(before);
  });

  it('leaves the trip surveys of 04-10, a day without trips here, unmatched', () => {
    const matched = new Set(
      labels.flatMap((l) => [
        ...l.additions.map((a) => a._id.$oid),
        ...Object.values(l.user_input).map((v) => (typeof v === 'string' ? '' : v._id.$oid)),
      ]),
    );
    const unmatchedSurveys = inputs.filter(
      (e) => e.metadata.key === 'manual/trip_user_input' && !matched.has(e._id.$oid),
    );
    expect(unmatchedSurveys.map((e) => String(e.data['start_fmt_time']).slice(0, 10))).toEqual(
      Array(4).fill('2023-04-10'),
    );
  });
});
