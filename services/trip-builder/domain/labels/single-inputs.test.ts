import { describe, expect, it } from 'vitest';
import { fakeInput } from '../../../../test/helpers/trip-builder/fake-inputs.js';
import { matchTimeline } from './match-timeline.js';
import { latestWritten, userInputFieldOf } from './single-inputs.js';
import type { TimelineElement } from './timeline.js';

const trip: TimelineElement = { kind: 'trip', startTs: 5, endTs: 10 };
const userInputOf = (inputs: Parameters<typeof matchTimeline>[1]) => matchTimeline([trip], inputs)[0]!.user_input;

describe('single inputs (TestUserInputFakeData.testHandleSingleMostRecentMatch)', () => {
  it('keeps the label string of a MULTILABEL input under the key without manual/', () => {
    const foo = fakeInput({ key: 'manual/mode_confirm', start: 8, end: 9, label: 'FOO' });
    expect(userInputFieldOf(foo)).toEqual({ mode_confirm: 'FOO' });
    expect(userInputOf([foo])).toEqual({ mode_confirm: 'FOO' });
  });
  it('matches each key on its own', () => {
    const inputs = [
      fakeInput({ key: 'manual/mode_confirm', start: 8, end: 9, label: 'FOO' }),
      fakeInput({ key: 'manual/purpose_confirm', start: 8, end: 9, label: 'BAR' }),
      fakeInput({ key: 'manual/replaced_mode', start: 8, end: 9, label: 'car' }),
    ];
    expect(userInputOf(inputs)).toEqual({ mode_confirm: 'FOO', purpose_confirm: 'BAR', replaced_mode: 'car' });
  });
  it('takes the latest written per key', () => {
    const inputs = [
      fakeInput({ key: 'manual/mode_confirm', start: 8, end: 9, label: 'FOO', writeTs: 1 }),
      fakeInput({ key: 'manual/purpose_confirm', start: 8, end: 9, label: 'BAR', writeTs: 1 }),
      fakeInput({ key: 'manual/mode_confirm', start: 8, end: 9, label: 'GOO', writeTs: 2 }),
      fakeInput({ key: 'manual/purpose_confirm', start: 8, end: 9, label: 'JAR', writeTs: 2 }),
    ];
    expect(userInputOf(inputs)).toEqual({ mode_confirm: 'GOO', purpose_confirm: 'JAR' });
    expect(userInputOf([...inputs].reverse())).toEqual({ mode_confirm: 'GOO', purpose_confirm: 'JAR' });
  });
  it('keeps a survey as its whole entry, the latest one winning', () => {
    const two = fakeInput({
      key: 'manual/trip_user_input',
      start: 8,
      end: 9,
      label: '2 modes, 2 purposes',
      writeTs: 1,
    });
    const five = fakeInput({
      key: 'manual/trip_user_input',
      start: 8,
      end: 9,
      label: '5 modes, 5 purposes',
      writeTs: 2,
    });
    expect(userInputOf([two])).toEqual({ trip_user_input: two });
    expect(userInputOf([five, two])).toEqual({ trip_user_input: five });
  });
});

describe('latest valid candidate (TestUserInputFakeData.testFinalCandidate)', () => {
  // e-mission's filter there keeps starts < 10; here the trip [5, 10] does the same.
  const threeWrites = (key: string) =>
    [1, 2, 3].map((writeTs) => fakeInput({ key, start: 8, end: 9, label: `foo${writeTs}`, writeTs }));

  it('MULTILABEL: the latest written among the valid ones', () => {
    const inputs = threeWrites('manual/mode_confirm');
    expect(userInputOf(inputs)).toEqual({ mode_confirm: 'foo3' });
    inputs[2]!.data.start_ts = 15; // now outside the trip: the one written before it wins
    expect(userInputOf(inputs)).toEqual({ mode_confirm: 'foo2' });
    expect(userInputOf(inputs.slice(2))).toEqual({});
  });
  it('survey: the latest written among the valid ones, as a whole entry', () => {
    const inputs = threeWrites('manual/trip_user_input');
    expect(userInputOf(inputs)).toEqual({ trip_user_input: inputs[2] });
    inputs[2]!.data.start_ts = 15;
    expect(userInputOf(inputs)).toEqual({ trip_user_input: inputs[1] });
  });
  it("the phone's vector: of three mode labels, only the one inside the trip counts", () => {
    const t: TimelineElement = { kind: 'trip', startTs: 1437601000, endTs: 1437605000 };
    const next: TimelineElement = { kind: 'place', enterTs: 1437605000, exitTs: 1437606000 };
    const first = fakeInput({
      key: 'manual/mode_confirm',
      start: 1437606026,
      end: 1437607732,
      label: 'bus',
      writeTs: 1695830232,
    });
    const second = fakeInput({
      key: 'manual/mode_confirm',
      start: 1437596745,
      end: 1437598393,
      label: 'e-bike',
      writeTs: 1695838268,
    });
    const third = fakeInput({
      key: 'manual/mode_confirm',
      start: 1437601247,
      end: 1437604764,
      label: 'e-bike',
      writeTs: 1695921991,
    });
    expect(matchTimeline([t, next], [second, third, first])[0]!.user_input).toEqual({ mode_confirm: 'e-bike' });
    expect(matchTimeline([t, next], [first, second])[0]!.user_input).toEqual({});
  });
  it('breaks a write-time tie by id, whatever the order of the list', () => {
    const a = fakeInput({ key: 'manual/mode_confirm', start: 8, end: 9, label: 'A', writeTs: 7, id: 'aaaa' });
    const b = fakeInput({ key: 'manual/mode_confirm', start: 8, end: 9, label: 'B', writeTs: 7, id: 'bbbb' });
    expect(latestWritten([a, b])).toBe(b);
    expect(latestWritten([b, a])).toBe(b);
  });
  it('leaves out a MULTILABEL winner without a label', () => {
    const unlabeled = fakeInput({ key: 'manual/mode_confirm', start: 8, end: 9 });
    expect(userInputOf([unlabeled])).toEqual({});
  });
});
