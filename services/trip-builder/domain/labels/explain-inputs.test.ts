import { describe, expect, it } from 'vitest';
import { explainInputs } from './explain-inputs.js';
import { fakeInput } from '../../../../test/helpers/trip-builder/fake-inputs.js';
import { timelineOfMoves } from './timeline.js';

// place(…–1000) trip(1000–2000) place(2000–5000) trip(5000–6000) place(6000–)
const timeline = timelineOfMoves([
  { startTs: 1000, endTs: 2000 },
  { startTs: 5000, endTs: 6000 },
]);

describe('explainInputs', () => {
  it('names the element each input labels, and why the others label nothing', () => {
    const winner = fakeInput({ key: 'manual/mode_confirm', start: 1000, end: 2000, label: 'bike', writeTs: 20 });
    const loser = fakeInput({ key: 'manual/mode_confirm', start: 1000, end: 2000, label: 'walk', writeTs: 10 });
    const nowhere = fakeInput({ key: 'manual/purpose_confirm', start: 3000, end: 3500, label: 'work' });
    const tooLong = fakeInput({ key: 'manual/mode_confirm', start: 5900, end: 9000, label: 'car' });
    const placeNote = fakeInput({ key: 'manual/place_addition_input', start: 2500, end: 2600, matchId: 'p1' });
    const killed = fakeInput({ key: 'manual/trip_addition_input', start: 1000, end: 2000, matchId: 'n1' });
    const deletion = fakeInput({
      key: 'manual/trip_addition_input',
      start: 1000,
      end: 2000,
      matchId: 'n1',
      status: 'DELETED',
    });
    const survey = fakeInput({ key: 'manual/demographic_survey', start: 0, end: 0 });
    const fates = explainInputs(timeline, [winner, loser, nowhere, tooLong, placeNote, killed, deletion, survey]);
    const shown = fates.map((f) => (f.matched !== null ? f.matched : f.reason));
    expect(shown).toEqual([
      1,
      'replaced by a later manual/mode_confirm (written 20)',
      'no trip at its start time',
      'runs 15 min past its trip or place and covers less than half of it',
      2,
      'deleted later',
      'a deletion: removes note n1',
      'never matched (a one-time survey or another key)',
    ]);
  });
});
