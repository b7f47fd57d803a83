import { describe, expect, it } from 'vitest';
import { fakeInput } from '../../../../test/helpers/trip-builder/fake-inputs.js';
import { type TimelineElement, OPEN_END_TS } from './timeline.js';
import { checkValidity, isValidInput, startsWithin } from './validity.js';

const label = (start: number, end: number) => fakeInput({ key: 'manual/mode_confirm', start, end, label: 'walk' });
const trip = (startTs: number, endTs: number): TimelineElement => ({ kind: 'trip', startTs, endTs });
const place = (enterTs?: number, exitTs?: number): TimelineElement => ({ kind: 'place', enterTs, exitTs });

describe('validity: where the input starts', () => {
  const t = trip(1000, 3000);
  it('accepts a start anywhere from the start (included) to the end (excluded)', () => {
    expect(isValidInput(t, undefined, label(1000, 2000))).toBe(true);
    expect(isValidInput(t, undefined, label(2999, 3000))).toBe(true);
  });
  it('gives an input starting exactly at the end to the next element, not this one', () => {
    expect(checkValidity(t, undefined, label(3000, 3100))).toEqual({ valid: false, reason: 'starts-outside' });
    // …although e-mission's candidate query (both ends included) still finds it.
    expect(startsWithin(t, label(3000, 3100))).toBe(true);
  });
  it('rejects an input starting before the element', () => {
    expect(checkValidity(t, undefined, label(999, 2000))).toEqual({ valid: false, reason: 'starts-outside' });
    expect(startsWithin(t, label(999, 2000))).toBe(false);
  });
  it('treats a zero-length element as holding nothing', () => {
    expect(isValidInput(place(5000, 5000), undefined, label(5000, 5000))).toBe(false);
  });
});

describe('validity: +900 s end slack', () => {
  const t = trip(1000, 3000);
  const next = place(3000, 3500);
  it('accepts an end up to 15 minutes past the element, whatever comes next', () => {
    expect(isValidInput(t, next, label(2900, 3000 + 900))).toBe(true);
  });
  it('one second more sends the input to the next-entry rule (here it ends after the next place)', () => {
    expect(checkValidity(t, next, label(2900, 3901))).toEqual({ valid: false, reason: 'ends-too-late' });
  });
});

describe('validity: next-entry end and the > 0.5 overlap', () => {
  const t = trip(1000, 3000); // 2000 s long
  const next = place(3000, 5000);
  it('accepts an input ending within the next entry that covers most of this one', () => {
    // overlap (3000 − 1100) / 2000 = 0.95
    expect(isValidInput(t, next, label(1100, 4500))).toBe(true);
    expect(isValidInput(t, next, label(1100, 5000))).toBe(true);
  });
  it('rejects an input ending after the next entry ends', () => {
    expect(checkValidity(t, next, label(1100, 5001))).toEqual({ valid: false, reason: 'ends-too-late' });
  });
  it('rejects an input covering half of the entry or less', () => {
    expect(checkValidity(t, next, label(2500, 4500))).toEqual({ valid: false, reason: 'overlap-too-small' });
    // exactly one half is not more than one half
    expect(checkValidity(t, next, label(2000, 4500))).toEqual({ valid: false, reason: 'overlap-too-small' });
    expect(isValidInput(t, next, label(1999, 4500))).toBe(true);
  });
  it('without a next entry, or with an open one, any end passes but the overlap test still applies', () => {
    for (const after of [undefined, place(3000, undefined)]) {
      expect(isValidInput(t, after, label(1100, 99_999))).toBe(true);
      expect(checkValidity(t, after, label(2900, 99_999))).toEqual({ valid: false, reason: 'overlap-too-small' });
    }
  });
  it('a place looks at the trip after it', () => {
    const p = place(3000, 5000);
    expect(isValidInput(p, trip(5000, 6000), label(3100, 5900))).toBe(true);
    expect(isValidInput(p, trip(5000, 6000), label(3100, 6001))).toBe(false);
  });
});

describe('validity: default bounds', () => {
  it('the first place (no enter) starts at 0', () => {
    expect(isValidInput(place(undefined, 1000), undefined, label(0, 500))).toBe(true);
  });
  it('the open last place (no exit) reaches 2^31 − 1', () => {
    const open = place(5000, undefined);
    expect(isValidInput(open, undefined, label(1_700_000_000, 1_700_000_100))).toBe(true);
    expect(isValidInput(open, undefined, label(OPEN_END_TS, OPEN_END_TS))).toBe(false);
  });
});

describe("validity: e-mission-phone's inputMatcher vectors (shankari_2015-07-22)", () => {
  const input = label(1437601247, 1437604764);
  it('accepts the label inside its trip', () => {
    expect(isValidInput(trip(1437601000, 1437605000), trip(1437606000, 1437607000), input)).toBe(true);
  });
  it('rejects it for an entry at time 1', () => {
    expect(isValidInput(trip(1, 1), undefined, input)).toBe(false);
  });
});
