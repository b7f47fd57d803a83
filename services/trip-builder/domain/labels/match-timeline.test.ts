import { describe, expect, it } from 'vitest';
import { fakeInput } from '../../../../test/helpers/trip-builder/fake-inputs.js';
import { labelMoves, matchTimeline } from './match-timeline.js';
import { timelineOfMoves } from './timeline.js';

// Two trips and the places around them: place0 [–, 1000] trip1 [1000, 2000] place1 [2000, 5000] trip2 [5000, 6000]
// place2 [6000, open).
const moves = [
  { startTs: 1000, endTs: 2000 },
  { startTs: 5000, endTs: 6000 },
];

describe('timelineOfMoves', () => {
  it('puts a place before, between and after the moves; the first has no enter, the last no exit', () => {
    expect(timelineOfMoves([...moves, { startTs: 7000, endTs: 8000, untracked: true }])).toEqual([
      { kind: 'place', enterTs: undefined, exitTs: 1000 },
      { kind: 'trip', startTs: 1000, endTs: 2000 },
      { kind: 'place', enterTs: 2000, exitTs: 5000 },
      { kind: 'trip', startTs: 5000, endTs: 6000 },
      { kind: 'place', enterTs: 6000, exitTs: 7000 },
      { kind: 'untracked', startTs: 7000, endTs: 8000 },
      { kind: 'place', enterTs: 8000, exitTs: undefined },
    ]);
  });
  it('takes the known edges when the list is a window of a longer timeline', () => {
    const timeline = timelineOfMoves(moves, { firstPlaceEnterTs: 500, lastPlaceExitTs: 9000 });
    expect(timeline[0]).toEqual({ kind: 'place', enterTs: 500, exitTs: 1000 });
    expect(timeline[4]).toEqual({ kind: 'place', enterTs: 6000, exitTs: 9000 });
  });
});

describe('labelMoves (path A)', () => {
  it('gives trips the trip inputs and places the place inputs', () => {
    const mode = fakeInput({ key: 'manual/mode_confirm', start: 1000, end: 2000, label: 'walk' });
    const purpose = fakeInput({ key: 'manual/purpose_confirm', start: 5000, end: 6000, label: 'work' });
    const tripNote = fakeInput({ key: 'manual/trip_addition_input', start: 1200, end: 1300, matchId: 't' });
    const placeNote = fakeInput({ key: 'manual/place_addition_input', start: 2000, end: 5000, matchId: 'p' });
    // A place note timed inside a trip is not the trip's, and a trip note inside a place is not the place's.
    const strayPlaceNote = fakeInput({ key: 'manual/place_addition_input', start: 1500, end: 1600, matchId: 's' });
    const strayTripNote = fakeInput({ key: 'manual/trip_addition_input', start: 3000, end: 3100, matchId: 'u' });
    const labels = labelMoves(moves, [mode, purpose, tripNote, placeNote, strayPlaceNote, strayTripNote]);

    expect(labels.moves).toEqual([
      { user_input: { mode_confirm: 'walk' }, additions: [tripNote] },
      { user_input: { purpose_confirm: 'work' }, additions: [] },
    ]);
    expect(labels.places).toEqual([
      { user_input: {}, additions: [] },
      { user_input: {}, additions: [placeNote] },
      { user_input: {}, additions: [] },
    ]);
  });

  it('labels an untracked period like a trip', () => {
    const mode = fakeInput({ key: 'manual/mode_confirm', start: 7000, end: 8000, label: 'car' });
    const labels = labelMoves([...moves, { startTs: 7000, endTs: 8000, untracked: true }], [mode]);
    expect(labels.moves[2]!.user_input).toEqual({ mode_confirm: 'car' });
  });

  it('accepts the trip builder’s trips as they are (extra fields ignored)', () => {
    const builtTrips = moves.map((m) => ({ ...m, rawStartTs: m.startTs - 60, distance: 1234, timeZone: 'UTC' }));
    const mode = fakeInput({ key: 'manual/mode_confirm', start: 5000, end: 6000, label: 'bike' });
    expect(labelMoves(builtTrips, [mode]).moves[1]!.user_input).toEqual({ mode_confirm: 'bike' });
  });

  it('ignores inputs that never label trips (one-time surveys, unknown keys)', () => {
    const survey = fakeInput({ key: 'manual/demographic_survey', start: 1000, end: 2000 });
    const labels = labelMoves(moves, [survey]);
    expect([...labels.moves, ...labels.places].every((l) => l.additions.length === 0)).toBe(true);
    expect([...labels.moves, ...labels.places].every((l) => Object.keys(l.user_input).length === 0)).toBe(true);
  });

  it('lets a survey run into the place after its trip when it covers most of the trip', () => {
    const survey = fakeInput({ key: 'manual/trip_user_input', start: 1100, end: 4000, label: 'answered' });
    expect(labelMoves(moves, [survey]).moves[0]!.user_input).toEqual({ trip_user_input: survey });
    const tooShort = fakeInput({ key: 'manual/trip_user_input', start: 1800, end: 4000 });
    expect(labelMoves(moves, [tooShort]).moves[0]!.user_input).toEqual({});
  });

  it('the open last place takes every later place note until it closes, then they move to their places', () => {
    const notes = [7500, 9500].map((start, i) =>
      fakeInput({ key: 'manual/place_addition_input', start, end: start + 100, matchId: `n${i}` }),
    );
    const open = labelMoves(moves, notes);
    expect(open.places[2]!.additions).toEqual(notes);

    // Day 2: the user left at 7000 and came back at 9000.
    const closed = labelMoves([...moves, { startTs: 7000, endTs: 9000 }], notes);
    expect(closed.places[2]!.additions).toEqual([]);
    expect(closed.places[3]!.additions).toEqual([notes[1]]);
    // The note at 7500 is inside the new trip, and place notes never go to trips.
    expect(closed.moves[2]!.additions).toEqual([]);
  });

  it('gives the same labels whatever the order of the inputs (a rebuild matches the same)', () => {
    const inputs = [
      fakeInput({ key: 'manual/mode_confirm', start: 1000, end: 2000, label: 'walk', writeTs: 1 }),
      fakeInput({ key: 'manual/mode_confirm', start: 1000, end: 2000, label: 'bike', writeTs: 2 }),
      fakeInput({ key: 'manual/trip_addition_input', start: 1500, end: 1600, matchId: 'x', writeTs: 3 }),
      fakeInput({ key: 'manual/trip_addition_input', start: 1100, end: 1600, matchId: 'y', writeTs: 4 }),
      fakeInput({
        key: 'manual/trip_addition_input',
        start: 1100,
        end: 1600,
        matchId: 'y',
        status: 'DELETED',
        writeTs: 5,
      }),
    ];
    const timeline = timelineOfMoves(moves);
    const forward = matchTimeline(timeline, inputs);
    expect(matchTimeline(timeline, [...inputs].reverse())).toEqual(forward);
    expect(forward[1]).toEqual({ user_input: { mode_confirm: 'bike' }, additions: [inputs[2]] });
  });
});
