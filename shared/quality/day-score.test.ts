import { describe, expect, it } from 'vitest';
import { State } from '../events/emission-enums.js';
import type { SensedDay } from '../tables/participant-days.js';
import { DAY_QUARTERS, emptySensedDay, scoreDay, scoreDays } from './day-score.js';

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
const at = (hh: number, mm = 0) => hh * 3600 + mm * 60;

const day = (localDate: string, parts: Partial<SensedDay> = {}): SensedDay => ({
  ...emptySensedDay(localDate),
  ...parts,
});

/** A working phone's day: at home until 08:00, a trip to 08:30, at work, a trip 17:00–17:30, home again. */
const commute = (localDate: string): SensedDay => {
  const trips = [...range(32, 34), ...range(68, 70)];
  return day(localDate, {
    locationQuarters: trips,
    motionQuarters: trips,
    dataQuarters: [0, ...trips, 95],
    states: [
      [at(8), State.ONGOING_TRIP],
      [at(8, 31), State.WAITING_FOR_TRIP_START],
      [at(17), State.ONGOING_TRIP],
      [at(17, 31), State.WAITING_FOR_TRIP_START],
    ],
  });
};

describe('the day completeness score', () => {
  it('When the phone locates on its trips and waits at its places, then the day is complete', () => {
    const score = scoreDay(commute('2026-05-04'), State.WAITING_FOR_TRIP_START, DAY_QUARTERS);
    expect(score.score).toBe(1);
    expect(score.quarters).toMatchObject({ located: 4, at_place: 92 });
    expect(score.hoursWithLocations).toBe(2);
    expect(score.gaps).toEqual([]);
  });

  it('When tracking is turned off at noon, then the afternoon is a gap told apart from a phone that went quiet', () => {
    const off = commute('2026-05-04');
    off.states = [...off.states.slice(0, 2), [at(12), State.TRACKING_STOPPED]];
    off.locationQuarters = range(32, 34);
    off.dataQuarters = [0, ...range(32, 34), 48];
    const score = scoreDay(off, State.WAITING_FOR_TRIP_START, DAY_QUARTERS);
    expect(score.gaps).toEqual([{ from: '12:00', to: '24:00', reason: 'tracking_off' }]);
    expect(score.score).toBe(0.5);

    const quiet = commute('2026-05-04');
    quiet.states = quiet.states.slice(0, 1);
    quiet.locationQuarters = [32];
    quiet.dataQuarters = [0, 32];
    expect(scoreDay(quiet, State.WAITING_FOR_TRIP_START, DAY_QUARTERS).gaps).toEqual([
      { from: '08:15', to: '24:00', reason: 'no_data' },
    ]);
  });

  it('When the phone moves and sends motion but no location, then that stretch is a no-locations gap', () => {
    const noGps = day('2026-05-04', {
      dataQuarters: range(32, 40),
      motionQuarters: range(32, 40),
      states: [
        [at(8), State.ONGOING_TRIP],
        [at(10), State.WAITING_FOR_TRIP_START],
      ],
    });
    const score = scoreDay(noGps, State.WAITING_FOR_TRIP_START, DAY_QUARTERS);
    expect(score.gaps).toEqual([{ from: '08:00', to: '10:00', reason: 'no_locations' }]);
    expect(score.strip).toBe('P'.repeat(32) + 'M'.repeat(8) + 'P'.repeat(56));
    expect(score.score).toBe(0.92);
  });

  it('When a gap is shorter than an hour, then it counts in the score but is not listed', () => {
    const short = day('2026-05-04', { dataQuarters: [40], states: [[at(10), State.ONGOING_TRIP]] });
    short.states.push([at(10, 40), State.WAITING_FOR_TRIP_START]);
    const score = scoreDay(short, State.WAITING_FOR_TRIP_START, DAY_QUARTERS);
    expect(score.gaps).toEqual([]);
    expect(score.quarters).toMatchObject({ no_locations: 1, no_data: 1 });
    expect(score.score).toBe(0.98);
  });

  it('When days are scored in a row, then the latest counts up to its last entry and a missing day is all no-data', () => {
    const latest = day('2026-05-07', {
      dataQuarters: [10, 36],
      locationQuarters: [36],
      states: [[at(9), State.ONGOING_TRIP]],
    });
    const scores = scoreDays([commute('2026-05-04'), latest], {
      from: '2026-05-04',
      to: '2026-05-07',
      latestDate: '2026-05-07',
    });
    expect(scores.map((s) => s.localDate)).toEqual(['2026-05-04', '2026-05-05', '2026-05-06', '2026-05-07']);
    expect(scores[1]).toMatchObject({ score: 0, gaps: [{ from: '00:00', to: '24:00', reason: 'no_data' }] });
    // The latest day began at a place (its previous sensed day ended there) and is judged up to 09:15.
    expect(scores[3]).toMatchObject({ considered: 37, quarters: { at_place: 36, located: 1 }, score: 1 });
  });

  it('When the range read ends before the latest day, then its days are whole and the silent ones after are listed', () => {
    const scores = scoreDays([commute('2026-05-04')], {
      from: '2026-05-04',
      to: '2026-05-06',
      latestDate: '2026-05-09',
    });
    expect(scores.map((s) => [s.localDate, s.considered, s.score])).toEqual([
      ['2026-05-04', 96, 0.67],
      ['2026-05-05', 96, 0],
      ['2026-05-06', 96, 0],
    ]);
  });

  it('When nothing tells the state the day began in, then the state its first transition found held since midnight', () => {
    const first = day('2026-05-04', {
      dataQuarters: [40],
      locationQuarters: [40],
      states: [
        [at(10) - 0.001, State.WAITING_FOR_TRIP_START],
        [at(10), State.ONGOING_TRIP],
      ],
    });
    expect(scoreDays([first], { from: '2026-05-04', to: '2026-05-04', latestDate: '2026-05-04' })[0]).toMatchObject({
      considered: 41,
      quarters: { at_place: 40, located: 1 },
    });
  });

  it('When a day has no transition at all and no state is known, then quarters without entries are no data', () => {
    const first = day('2026-05-04', { dataQuarters: [40], locationQuarters: [40] });
    expect(scoreDays([first], { from: '2026-05-04', to: '2026-05-04', latestDate: '2026-05-04' })[0]).toMatchObject({
      considered: 41,
      quarters: { located: 1, no_data: 40 },
    });
  });

  it('When tracking was turned off and the phone then sent nothing for days, then those days are tracking off', () => {
    const off = day('2026-05-04', {
      dataQuarters: [48],
      states: [
        [at(12) - 0.001, State.WAITING_FOR_TRIP_START],
        [at(12), State.TRACKING_STOPPED],
      ],
    });
    const back = day('2026-05-08', { dataQuarters: [40], locationQuarters: [40] });
    const scores = scoreDays([off, back], { from: '2026-05-04', to: '2026-05-08', latestDate: '2026-05-08' });
    expect(scores.slice(1, 4).map((s) => [s.localDate, s.quarters.tracking_off, s.score])).toEqual([
      ['2026-05-05', 96, 0],
      ['2026-05-06', 96, 0],
      ['2026-05-07', 96, 0],
    ]);
    // Tracking stays off into the day it came back, until its first location.
    expect(scores[4]).toMatchObject({ quarters: { tracking_off: 40, located: 1 } });
  });

  it('When the range starts after days read only for their state, then those days are not listed but set the state', () => {
    const scores = scoreDays([commute('2026-05-01'), day('2026-05-03', { dataQuarters: [10] })], {
      from: '2026-05-02',
      to: '2026-05-03',
      latestDate: '2026-05-03',
    });
    expect(scores.map((s) => s.localDate)).toEqual(['2026-05-02', '2026-05-03']);
    // The 1st ended at a place: its state carries over the empty 2nd (no data there) into the 3rd.
    expect(scores[0]).toMatchObject({ score: 0, quarters: { no_data: 96 } });
    expect(scores[1]).toMatchObject({ considered: 11, quarters: { at_place: 11 }, score: 1 });
  });
});
