import { describe, expect, it } from 'vitest';
import { deletedMatchIds, appendAddition, liveAdditions, removeAdditions } from './additions.js';
import { fakeInput } from '../../../../test/helpers/trip-builder/fake-inputs.js';
import type { UserInputEntry } from './input-entry.js';
import { matchTimeline } from './match-timeline.js';
import type { TimelineElement } from './timeline.js';

const NOTE = 'manual/trip_addition_input';
const note = (matchId: string, status: string | undefined, writeTs: number, start = 8, end = 9) =>
  fakeInput({ key: NOTE, start, end, matchId, status, writeTs });
const live = (candidates: UserInputEntry[]) => liveAdditions(candidates, deletedMatchIds(candidates));

describe('notes that show (TestUserInputFakeData.testGetNotDeletedCandidates)', () => {
  it('keeps every ACTIVE note, and a note without status as ACTIVE', () => {
    const notes = [note('foo', 'ACTIVE', 1), note('bar', 'ACTIVE', 2), note('baz', undefined, 3)];
    expect(live(notes)).toEqual(notes);
  });
  it('drops the DELETED copy and the ACTIVE note of its match id', () => {
    const notes = [note('foo', 'ACTIVE', 1), note('foo', 'DELETED', 2), note('bar', 'ACTIVE', 3)];
    expect(live(notes)).toEqual([notes[2]]);
  });
  it('drops every ACTIVE note of a deleted match id, even one written after the deletion', () => {
    const notes = [note('foo', 'ACTIVE', 1), note('foo', 'DELETED', 2), note('foo', 'ACTIVE', 3)];
    expect(live(notes)).toEqual([]);
  });
  it('the deletion wins in any write order', () => {
    const deletedFirst = [note('foo', 'DELETED', 1), note('foo', 'ACTIVE', 2), note('bar', 'ACTIVE', 3)];
    expect(live(deletedFirst)).toEqual([deletedFirst[2]]);
    expect(live([...deletedFirst].reverse())).toEqual([deletedFirst[2]]);
  });
  it('gives nothing for deletions alone', () => {
    expect(live([note('foo', 'DELETED', 2), note('foo', 'DELETED', 3)])).toEqual([]);
  });
  it('orders notes by start time, then id', () => {
    const late = note('a', 'ACTIVE', 1, 9);
    const early = note('b', 'ACTIVE', 2, 7);
    const sameStartLaterId = note('c', 'ACTIVE', 3, 7);
    expect(live([late, sameStartLaterId, early])).toEqual([early, sameStartLaterId, late]);
  });
});

describe('notes on a trip (TestUserInputFakeData.testGetAdditionsForTripObjects)', () => {
  const trip: TimelineElement = { kind: 'trip', startTs: 5, endTs: 15 };
  it('finds an ACTIVE note inside the trip', () => {
    const foo = note('foo', 'ACTIVE', 1, 8, 10);
    expect(matchTimeline([trip], [foo])[0]!.additions).toEqual([foo]);
  });
  it('keeps only the note whose match id was not deleted', () => {
    const notes = [note('foo', 'ACTIVE', 1, 8, 10), note('foo', 'DELETED', 1, 8, 10), note('bar', 'ACTIVE', 1, 9, 12)];
    expect(matchTimeline([trip], notes)[0]!.additions).toEqual([notes[2]]);
  });
  it('a deletion counts even when its copy lies outside this trip', () => {
    const active = note('foo', 'ACTIVE', 1, 8, 10);
    const deletedElsewhere = note('foo', 'DELETED', 2, 100, 110);
    expect(matchTimeline([trip], [active, deletedElsewhere])[0]!.additions).toEqual([]);
  });
});

describe('notes changed one at a time (TestUserInputFakeData.testHandleMultiNonDeletedMatch)', () => {
  const foo = note('foo', 'ACTIVE', 1);
  const bar = note('bar', 'ACTIVE', 2);
  it('adds one, then another', () => {
    expect(appendAddition([], foo)).toEqual([foo]);
    expect(appendAddition([foo], bar)).toEqual([foo, bar]);
  });
  it('appends in arrival order, as e-mission does (path A sorts again on rebuild)', () => {
    const later = note('later', 'ACTIVE', 3, 20);
    expect(appendAddition([later], foo)).toEqual([later, foo]);
  });
  it('add two, delete one: the other stays', () => {
    expect(removeAdditions([foo, bar], 'foo')).toEqual([bar]);
  });
  it('add two, delete two: none stays', () => {
    expect(removeAdditions(removeAdditions([foo, bar], 'foo'), 'bar')).toEqual([]);
  });
  it('deleting a match id that is not there changes nothing', () => {
    expect(removeAdditions([foo], 'bar')).toEqual([foo]);
  });
  it('adding a note already there (replay, or matched when the trip was built) keeps one copy', () => {
    expect(appendAddition([foo, bar], foo)).toEqual([foo, bar]);
  });
});
