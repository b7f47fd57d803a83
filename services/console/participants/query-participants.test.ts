import { describe, expect, it } from 'vitest';
import { ParticipantsQuery } from '../api/schemas.js';
import { maskedNewestFirst, maskToken, ParticipantSnapshot, type ParticipantRow } from './query-participants.js';

const row = (n: number, over: Partial<ParticipantRow> = {}): ParticipantRow => ({
  userId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  token: `nrelop_study_default_${n}`,
  program: 'study',
  created: 1000 + n,
  firstPush: 2000 + n,
  lastPush: 3000 + n,
  lastTrip: null,
  lastTripLocal: null,
  lastData: null,
  lastLocation: null,
  trackingOffSince: null,
  lastLabel: null,
  trips: n,
  labelledPct: null,
  errors: 0,
  platform: null,
  appVersion: null,
  ...over,
});
const ask = (q: Record<string, unknown>) => ParticipantsQuery.parse(q);

describe('ParticipantSnapshot', () => {
  const snapshot = new ParticipantSnapshot(
    [row(3), row(1, { lastPush: null }), row(2), row(4, { token: 'alice@example.org' })],
    99,
  );

  it('sorts on the server, nulls last in either direction, and pages', () => {
    const desc = snapshot.page(ask({ sort: 'lastPush', dir: 'desc', size: 2 }));
    expect(desc.total).toBe(4);
    expect(desc.rows.map((r) => r.trips)).toEqual([4, 3]);
    const next = snapshot.page(ask({ sort: 'lastPush', dir: 'desc', size: 2, page: 1 }));
    expect(next.rows.map((r) => r.trips)).toEqual([2, 1]);
    const asc = snapshot.page(ask({ sort: 'lastPush', dir: 'asc' }));
    expect(asc.rows.map((r) => r.trips)).toEqual([2, 3, 4, 1]);
  });

  it('searches inside tokens for operators, whole tokens for readers, uuids for both, and masks every token', () => {
    expect(snapshot.page(ask({ q: 'ALICE' })).total).toBe(0);
    expect(snapshot.page(ask({ q: 'alice@example.org' })).total).toBe(1);
    const found = snapshot.page(ask({ q: 'ALICE' }), { searchTokens: true });
    expect(found.total).toBe(1);
    expect(found.rows[0]?.token).toBe('alic…rg');
    expect(snapshot.page(ask({ q: '000000000002' })).rows.map((r) => r.trips)).toEqual([2]);
  });

  it('When the page is asked for some programs, then rows, totals and token searches hold only their participants', () => {
    const mixed = new ParticipantSnapshot(
      [
        row(1),
        row(2, { token: 'nrelop_other_default_2', program: 'other' }),
        row(3, { token: 'x@y.z', program: null }),
      ],
      99,
    );
    const studyOnly = mixed.page(ask({}), { programs: ['study'] });
    expect([studyOnly.total, studyOnly.rows.map((r) => r.trips)]).toEqual([1, [1]]);
    expect(mixed.page(ask({ q: 'other' }), { searchTokens: true, programs: ['study'] }).total).toBe(0);
    expect(mixed.page(ask({ q: '000000000002' }), { programs: ['study'] }).total).toBe(0);
    expect(mixed.page(ask({ q: 'other' }), { searchTokens: true }).total).toBe(1);
    expect(mixed.page(ask({}), { programs: ['study', 'other'] }).total).toBe(2);
    expect(mixed.page(ask({})).total).toBe(3);
  });

  it('When the list is sorted by token, then it is sorted by what the list shows, so the hidden part does not leak its order', () => {
    const hidden = new ParticipantSnapshot(
      [row(1, { token: 'nrelop_s_default_Zzzzzzzz42' }), row(2, { token: 'nrelop_s_default_Aaaaaaaa42' })],
      1,
    );
    // Both show as "nrel…42": the tie goes by uuid in either direction, never by the letters hidden.
    for (const dir of ['asc', 'desc'])
      expect(hidden.page(ask({ sort: 'token', dir })).rows.map((r) => r.trips)).toEqual([1, 2]);
  });

  it('masks short tokens to their first two characters', () => {
    expect(maskToken('abc')).toBe('ab…');
  });
});

describe('maskedNewestFirst', () => {
  it('When rows tie on time, then their order follows what a reader sees, not the hidden part of their tokens', () => {
    const rows = [
      { token: 'nrelop_a_default_zzzzzz_end', lastTs: 100, attempts: 9 },
      { token: 'nrelop_a_default_aaaaaa_end', lastTs: 100, attempts: 10 },
      { token: 'nrelop_a_default_mmmmmm_new', lastTs: 200, attempts: 1 },
    ];
    const shown = maskedNewestFirst(rows, 'lastTs');
    expect(shown.map((r) => r.lastTs)).toEqual([200, 100, 100]);
    expect(shown.every((r) => !r.token.includes('zzz') && !r.token.includes('aaa'))).toBe(true);
    // The two tied rows look alike but for attempts: the same order whichever hidden token comes first in the table.
    expect(maskedNewestFirst([rows[1]!, rows[0]!, rows[2]!], 'lastTs')).toEqual(shown);
  });
});
