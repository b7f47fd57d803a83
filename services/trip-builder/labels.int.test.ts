import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../test/helpers/gateway.js';
import { runCli, startInProcessPipeline, type InProcessPipeline } from '../../test/helpers/pipeline.js';
import { DAY_OF, phoneEntries } from '../../test/helpers/real-days.js';
import { waitFor, type TestEnv } from '../../test/helpers/test-env.js';
import { compositeTrips, pushEntries, settledTrips, userInput } from '../../test/helpers/trips.js';
import {
  createParticipantActivityTable,
  createUsersTable,
  type ParticipantActivity,
} from '../../shared/tables/index.js';

/**
 * Labels, surveys and notes reach the trips and places they are about, read the way the current app reads them
 * (`find_entries` of `analysis/composite_trip` on `data.end_ts`): given after the day was processed (path B),
 * before it (path A), or in the same push; a label changed twice keeps the latest; a note edited and deleted.
 */

const DAY = 'shankari_2016-08-10';
const TRIPS = 4;

let pipeline: InProcessPipeline;
let env: TestEnv;
let gw: RunningGateway;

beforeAll(async () => {
  pipeline = await startInProcessPipeline();
  ({ env, gw } = pipeline);
});
afterAll(async () => {
  await pipeline?.stop();
});

interface Span {
  start: number;
  end: number;
}

const note = (key: string, span: Span, matchId: string, status?: string) =>
  userInput(key, span, { name: 'note', version: 1, label: matchId, match_id: matchId, ...(status ? { status } : {}) });

const composites = (user: string) => compositeTrips(gw, user);

/** The composite trips once `check` holds for them. */
function compositesWhen(user: string, check: (trips: any[]) => boolean, what: string) {
  return waitFor(
    async () => {
      const trips = await composites(user);
      return trips.length >= TRIPS && check(trips) ? trips : undefined;
    },
    60_000,
    what,
  );
}

const span = (t: any): Span => ({ start: t.data.start_ts, end: t.data.end_ts });
/** The stay between trip i and trip i + 1. */
const stayAfter = (trips: any[], i: number): Span => ({ start: trips[i].data.end_ts, end: trips[i + 1].data.start_ts });
const matchIds = (additions: any[]) => additions.map((a) => a.data.match_id);

describe('labels', () => {
  it('When labels, a survey and notes are given after the day was processed, then each reaches its trip or place; the latest label wins and an edited, then deleted note disappears', async () => {
    const user = 'labels-after@example.org';
    expect((await gw.post('/profile/create', { user })).status).toBe(200);
    await pushEntries(gw, user, phoneEntries(DAY));
    await settledTrips(gw, user, DAY_OF[DAY], TRIPS);
    const trips = await composites(user);
    expect(trips.every((t) => Object.keys(t.data.user_input).length === 0)).toBe(true);

    await pushEntries(gw, user, [
      userInput('manual/mode_confirm', span(trips[0]), { label: 'walk' }),
      userInput('manual/purpose_confirm', span(trips[1]), { label: 'work' }),
      userInput('manual/trip_user_input', span(trips[2]), { name: 'TripConfirmSurvey', xmlResponse: '<a/>' }),
      note('manual/trip_addition_input', span(trips[0]), 'note-1'),
      note('manual/place_addition_input', stayAfter(trips, 0), 'place-note-1'),
      // A trip label given for a time when the user was at a place: it labels nothing.
      userInput(
        'manual/mode_confirm',
        { start: stayAfter(trips, 1).start + 60, end: stayAfter(trips, 1).start + 120 },
        { label: 'stray' },
      ),
    ]);
    // Changed twice, and the first note edited (a new note, the old one deleted), in later pushes.
    await pushEntries(gw, user, [userInput('manual/mode_confirm', span(trips[0]), { label: 'bike' })]);
    const latestInputs = [
      userInput('manual/mode_confirm', span(trips[0]), { label: 'e-bike' }),
      note('manual/trip_addition_input', span(trips[0]), 'note-2'),
      note('manual/trip_addition_input', span(trips[0]), 'note-1', 'DELETED'),
    ];
    await pushEntries(gw, user, latestInputs);

    const labelled = await compositesWhen(
      user,
      (t) =>
        t[0].data.user_input.mode_confirm === 'e-bike' &&
        matchIds(t[0].data.additions).join() === 'note-2' &&
        t[1].data.start_confirmed_place.data.additions.length === 1,
      'the labels in the composite trips',
    );
    expect(labelled[0].data.user_input).toEqual({ mode_confirm: 'e-bike' });
    expect(labelled[1].data.user_input).toEqual({ purpose_confirm: 'work' });
    expect(labelled[2].data.user_input.trip_user_input.data.name).toBe('TripConfirmSurvey');
    expect(labelled[3].data.user_input).toEqual({});
    // Both copies of the place between trip 0 and trip 1 carry its note.
    expect(matchIds(labelled[0].data.end_confirmed_place.data.additions)).toEqual(['place-note-1']);
    expect(matchIds(labelled[1].data.start_confirmed_place.data.additions)).toEqual(['place-note-1']);
    // The formatted input, as e-mission stores it.
    expect(labelled[2].data.user_input.trip_user_input.data.start_fmt_time).toMatch(/^2016-08-\d\dT/);

    // The profile counts labelled trips as e-mission's user stats do (a survey answer counts; a note alone not).
    const profile = (await gw.post('/profile/get', { user })).body;
    expect(profile.total_trips).toBe(labelled.length);
    expect(profile.labeled_trips).toBe(3);

    // The console's radar learns when the participant last wrote an input: the newest of those pushed (write times
    // only grow from one push to the next here).
    const { uuid } = (await createUsersTable(env.cql).findByEmail(user))!;
    const lastPushed = Math.max(...latestInputs.map((e) => e.metadata.write_ts));
    let activity: ParticipantActivity | undefined;
    for await (const a of createParticipantActivityTable(env.cql).all()) if (a.userId === uuid) activity = a;
    expect(activity?.lastLabelTs).toBe(lastPushed);

    // The operator's view of the day: each trip's labels, and the inputs that label nothing, with the reason.
    const report = await runCli(env, ['labels', user, '-d', DAY_OF[DAY]]);
    expect(report).toContain('labels:      mode_confirm=e-bike, note note-2');
    expect(report).toContain('end place:   note place-note-1');
    expect(report).toMatch(/manual\/mode_confirm "stray" .*: no trip at its start time/);
    expect(report).toMatch(/manual\/mode_confirm "walk" .*: replaced by a later manual\/mode_confirm/);

    // Deleting the remaining note removes it.
    await pushEntries(gw, user, [note('manual/trip_addition_input', span(trips[0]), 'note-2', 'DELETED')]);
    const deleted = await compositesWhen(user, (t) => t[0].data.additions.length === 0, 'the note deleted');
    expect(deleted[0].data.user_input.mode_confirm).toBe('e-bike');
  });

  it('When labels are pushed before the day they label, or in the same push, then the trips carry them as soon as they are built', async () => {
    // The trips' times are those of an undisturbed build of the same day.
    const reference = 'labels-reference@example.org';
    expect((await gw.post('/profile/create', { user: reference })).status).toBe(200);
    await pushEntries(gw, reference, phoneEntries(DAY));
    await settledTrips(gw, reference, DAY_OF[DAY], TRIPS);
    const trips = await composites(reference);
    const labels = [
      userInput('manual/mode_confirm', span(trips[0]), { label: 'car' }),
      userInput('manual/mode_confirm', span(trips[3]), { label: 'bus' }),
    ];

    const before = 'labels-before@example.org';
    expect((await gw.post('/profile/create', { user: before })).status).toBe(200);
    await pushEntries(gw, before, labels);
    await pushEntries(gw, before, phoneEntries(DAY));

    const together = 'labels-together@example.org';
    expect((await gw.post('/profile/create', { user: together })).status).toBe(200);
    await pushEntries(gw, together, [...labels, ...phoneEntries(DAY)], 10_000);

    for (const user of [before, together]) {
      const labelled = await compositesWhen(
        user,
        (t) => t[0].data.user_input.mode_confirm === 'car' && t[3].data.user_input.mode_confirm === 'bus',
        `the labels of ${user}`,
      );
      const expected = labelled.map((t) =>
        t.data.start_ts === trips[0].data.start_ts ? 'car' : t.data.start_ts === trips[3].data.start_ts ? 'bus' : null,
      );
      expect(labelled.map((t) => t.data.user_input.mode_confirm ?? null)).toEqual(expected);
      expect(expected.filter(Boolean)).toHaveLength(2);
    }
  });
});
