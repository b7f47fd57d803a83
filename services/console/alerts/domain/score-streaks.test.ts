import { describe, expect, it } from 'vitest';
import type { DayScore } from '../../../../shared/quality/day-score.js';
import { findAll, parseAlertRule, type AlertRule } from './alert-rules.js';
import { lowScoreStreak } from './score-streaks.js';

const scored = (localDate: string, score: number | null) => ({ localDate, score }) as DayScore;

describe('runs of low-scoring days', () => {
  it('When the last whole days score low, then the run counts them back to the first, the latest day left out', () => {
    const days = [
      scored('2026-05-01', 0.9),
      scored('2026-05-02', 0.2),
      scored('2026-05-03', 0.4),
      scored('2026-05-04', 0.1),
      scored('2026-05-05', 0.0),
    ];
    expect(lowScoreStreak(days, '2026-05-05')).toEqual({
      days: 3,
      firstDate: '2026-05-02',
      since: Date.parse('2026-05-02T00:00:00Z') / 1000,
    });
  });

  it('When the last whole day is fine or unjudged, then there is no run', () => {
    expect(lowScoreStreak([scored('2026-05-01', 0.1), scored('2026-05-02', 0.8)], '2026-05-03')).toBeUndefined();
    expect(lowScoreStreak([scored('2026-05-01', 0.1), scored('2026-05-02', null)], '2026-05-03')).toBeUndefined();
  });

  it('When a low_score rule names days, then only runs at least that long are found, in its programs', () => {
    const rule = parseAlertRule('low_score:3d:study') as AlertRule;
    const row = (userId: string, program: string) =>
      ({ userId, token: `nrelop_${program}_default_x${userId}`, program, lastTripLocal: null }) as never;
    const lowScores = new Map([
      ['a', { days: 3, firstDate: '2026-05-02', since: 1 }],
      ['b', { days: 2, firstDate: '2026-05-03', since: 2 }],
      ['c', { days: 5, firstDate: '2026-05-01', since: 3 }],
    ]);
    const found = findAll(
      [rule],
      { rows: [row('a', 'study'), row('b', 'study'), row('c', 'other')], lowScores },
      {
        now: 10,
        localDay: () => 'never',
        mask: (t) => t,
      },
    );
    expect(found.map((f) => [f.userId, f.day, f.rule])).toEqual([['a', '2026-05-02', 'low_score:72h']]);
  });
});
