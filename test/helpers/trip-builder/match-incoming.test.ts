import { describe, expect, it } from 'vitest';
import { fakeInput } from './fake-inputs.js';
import { applyIncomingMatch, type ConfirmedElement, matchIncomingInput } from './match-incoming.js';
import {
  type ElementLabels,
  matchTimeline,
  type UserInputEntry,
} from '../../../services/trip-builder/domain/labels/index.js';

const DAY = 86_400;
// place0 [–, T] trip [T, T+1000] place1 [T+1000, T+5000] untracked [T+5000, T+6000] place2 [T+6000, open)
const T = 1_700_000_000;
const timeline: ConfirmedElement[] = [
  { kind: 'place', exitTs: T },
  { kind: 'trip', startTs: T, endTs: T + 1000, writeTs: T + 1000 },
  { kind: 'place', enterTs: T + 1000, exitTs: T + 5000 },
  { kind: 'untracked', startTs: T + 5000, endTs: T + 6000 },
  { kind: 'place', enterTs: T + 6000 },
];
const empty = (): ElementLabels => ({ user_input: {}, additions: [] });

describe('matchIncomingInput (path B)', () => {
  it('overwrites one label of the trip it belongs to', () => {
    const mode = fakeInput({ key: 'manual/mode_confirm', start: T, end: T + 1000, label: 'walk' });
    expect(matchIncomingInput(mode, timeline)).toEqual({
      action: 'set-user-input',
      index: 1,
      name: 'mode_confirm',
      value: 'walk',
    });
  });

  it('keeps a survey as its whole entry', () => {
    const survey = fakeInput({ key: 'manual/trip_user_input', start: T, end: T + 1000 });
    expect(matchIncomingInput(survey, timeline)).toMatchObject({ index: 1, name: 'trip_user_input', value: survey });
  });

  it('a label changed twice: the latest applied wins', () => {
    const first = fakeInput({ key: 'manual/mode_confirm', start: T, end: T + 1000, label: 'walk', writeTs: 1 });
    const second = fakeInput({ key: 'manual/mode_confirm', start: T, end: T + 1000, label: 'bike', writeTs: 2 });
    const labels = [first, second].reduce((l, ui) => applyIncomingMatch(l, matchIncomingInput(ui, timeline)), empty());
    expect(labels.user_input).toEqual({ mode_confirm: 'bike' });
  });

  it('adds a place note to the place by its enter time, and deletes it by match id', () => {
    const add = fakeInput({ key: 'manual/place_addition_input', start: T + 1000, end: T + 5000, matchId: 'm' });
    const del = fakeInput({ ...specOf(add), status: 'DELETED', matchId: 'm' });
    const added = matchIncomingInput(add, timeline);
    expect(added).toEqual({ action: 'add-addition', index: 2, addition: add });
    const removed = matchIncomingInput(del, timeline);
    expect(removed).toEqual({ action: 'remove-additions', index: 2, matchId: 'm' });
    expect(applyIncomingMatch(applyIncomingMatch(empty(), added), removed).additions).toEqual([]);
  });

  it('never gives a trip input to an untracked period', () => {
    const mode = fakeInput({ key: 'manual/mode_confirm', start: T + 5000, end: T + 6000, label: 'car' });
    // The only trip nearby starts before the input and ends before it starts.
    expect(matchIncomingInput(mode, timeline)).toEqual({ action: 'none', reason: 'no-valid-element' });
  });

  it('never matches the first place, which has no enter time', () => {
    const note = fakeInput({ key: 'manual/place_addition_input', start: T - 500, end: T - 100, matchId: 'f' });
    expect(matchIncomingInput(note, timeline.slice(0, 2))).toEqual({ action: 'none', reason: 'no-element-in-range' });
  });

  it('lets the open last place take a later place note', () => {
    const note = fakeInput({ key: 'manual/place_addition_input', start: T + 7000, end: T + 7100, matchId: 'o' });
    expect(matchIncomingInput(note, timeline)).toMatchObject({ action: 'add-addition', index: 4 });
  });

  it('looks for trips within a day of the input, both ends included', () => {
    const trip: ConfirmedElement = { kind: 'trip', startTs: T, endTs: T + 2 * DAY };
    const at = (start: number) => fakeInput({ key: 'manual/mode_confirm', start, end: start + 10, label: 'walk' });
    expect(matchIncomingInput(at(T + DAY), [trip])).toMatchObject({ action: 'set-user-input', index: 0 });
    expect(matchIncomingInput(at(T + DAY + 1), [trip])).toEqual({ action: 'none', reason: 'no-element-in-range' });
  });

  it('among several valid elements, takes the one written last', () => {
    const older: ConfirmedElement = { kind: 'trip', startTs: T, endTs: T + 1000, writeTs: 10 };
    const newer: ConfirmedElement = { kind: 'trip', startTs: T, endTs: T + 1000, writeTs: 20 };
    const mode = fakeInput({ key: 'manual/mode_confirm', start: T, end: T + 1000, label: 'walk' });
    expect(matchIncomingInput(mode, [newer, older])).toMatchObject({ index: 0 });
    expect(matchIncomingInput(mode, [older, newer])).toMatchObject({ index: 1 });
  });

  it('does not match one-time surveys or unknown keys', () => {
    const survey = fakeInput({ key: 'manual/demographic_survey', start: T, end: T });
    expect(matchIncomingInput(survey, timeline)).toEqual({ action: 'none', reason: 'not-matched-key' });
  });

  it('refuses a deletion without match id and a note of unknown status', () => {
    const noId = fakeInput({ key: 'manual/trip_addition_input', start: T, end: T + 10, status: 'DELETED' });
    const odd = fakeInput({ key: 'manual/trip_addition_input', start: T, end: T + 10, status: 'HIDDEN', matchId: 'h' });
    expect(matchIncomingInput(noId, timeline)).toEqual({ action: 'none', reason: 'unusable-input' });
    expect(matchIncomingInput(odd, timeline)).toEqual({ action: 'none', reason: 'unusable-input' });
  });

  it('a note added, edited and deleted ends as path A would match it', () => {
    const spec = { key: 'manual/trip_addition_input', start: T + 100, end: T + 200 };
    const steps: UserInputEntry[] = [
      fakeInput({ ...spec, matchId: 'v1', writeTs: 1 }),
      fakeInput({ ...spec, matchId: 'other', writeTs: 2 }),
      // editing: a new note, and the old one deleted
      fakeInput({ ...spec, matchId: 'v2', writeTs: 3 }),
      fakeInput({ ...spec, matchId: 'v1', status: 'DELETED', writeTs: 3 }),
      // deleting the edited one
      fakeInput({ ...spec, matchId: 'v2', status: 'DELETED', writeTs: 4 }),
    ];
    let labels = empty();
    steps.forEach((input, i) => {
      labels = applyIncomingMatch(labels, matchIncomingInput(input, timeline));
      expect(labels).toEqual(matchTimeline(timeline, steps.slice(0, i + 1))[1]);
    });
    expect(labels.additions.map((a) => a.data.match_id)).toEqual(['other']);
  });

  it('an input already matched when its trip was built is not added twice', () => {
    const note = fakeInput({ key: 'manual/trip_addition_input', start: T + 100, end: T + 200, matchId: 'same' });
    const built = matchTimeline(timeline, [note])[1]!;
    expect(applyIncomingMatch(built, matchIncomingInput(note, timeline))).toEqual(built);
  });
});

function specOf(entry: UserInputEntry) {
  return { key: entry.metadata.key, start: entry.data.start_ts, end: entry.data.end_ts };
}
