import { describe, expect, it } from 'vitest';
import type { AlertRule } from './alert-rules.js';
import type { Delivery } from './delivery.js';
import { digestPrograms, NO_PROGRAM, planDigests } from './digests.js';

const NOW = 1_800_000_000;
const rule = (id: string, programs?: string[]): AlertRule => ({
  id,
  kind: id.split(':')[0]!,
  hours: 48,
  programs,
});

const plan = (hour: number, stored: Map<string, Delivery>) =>
  planDigests({
    local: { day: '2027-01-15', hour },
    hour: 8,
    programs: ['a', 'b', 'c'],
    stored,
    now: NOW,
    channelsOf: () => ['webhook'],
  });

describe('the daily digests', () => {
  it('When the digest hour has not come, then no digest is due', () => {
    expect(plan(7, new Map())).toEqual({ day: '2027-01-15', claim: [], retry: [] });
  });

  it('When it has, then each program’s digest of the day is claimed once; a failed one is retried, a sent one not', () => {
    const stored = new Map<string, Delivery>([
      ['a', { attempt: 1, sendingUntil: null, sent: { webhook: NOW - 60 } }],
      ['b', { attempt: 2, sendingUntil: null, sent: {} }],
    ]);
    expect(plan(8, stored)).toEqual({ day: '2027-01-15', claim: ['c'], retry: [{ program: 'b', attempt: 2 }] });
    expect(plan(23, stored).claim).toEqual(['c']);
  });

  it('When another console is sending a digest, then it is left to it', () => {
    const stored = new Map<string, Delivery>([['a', { attempt: 1, sendingUntil: NOW + 60, sent: {} }]]);
    expect(plan(9, stored).retry).toEqual([]);
  });

  it('When rules watch some programs, then only those with participants get a digest', () => {
    const participants = [{ program: 'a' }, { program: 'b' }, { program: null }, { program: 'a' }];
    expect(digestPrograms([rule('silent:48h', ['a', 'z'])], participants)).toEqual(['a']);
    expect(digestPrograms([rule('silent:48h')], participants)).toEqual([NO_PROGRAM, 'a', 'b']);
  });
});
