import { describe, expect, it } from 'vitest';
import { participantRow } from '../../../../test/helpers/console/participant-row.js';
import type { ParticipantRow } from '../../participants/query-participants.js';
import { findAll, parseAlertRule, type AlertRule } from './alert-rules.js';

const NOW = 1_800_000_000;
const H = 3600;

const participant = (id: number, fields: Partial<ParticipantRow>) => participantRow(id, NOW, fields);

const rule = (text: string) => parseAlertRule(text) as AlertRule;
const find = (rules: AlertRule[], rows: ParticipantRow[]) =>
  findAll(rules, { rows }, { now: NOW, localDay: () => 'day-of-since', mask: (t) => `${t.slice(0, 4)}…` });

describe('the alert rules', () => {
  it('When rules are written, then each is read with its hours and programs, and named without the programs', () => {
    expect(parseAlertRule('silent:48h')).toEqual({ id: 'silent:48h', kind: 'silent', hours: 48, programs: undefined });
    expect(parseAlertRule(' tracking_off:2d:study-a+study-b ')).toEqual({
      id: 'tracking_off:48h',
      kind: 'tracking_off',
      hours: 48,
      programs: ['study-a', 'study-b'],
    });
    expect(parseAlertRule('no_locations:1.5h')).toMatchObject({ id: 'no_locations:1.5h', hours: 1.5 });
  });

  it.each([
    ['silent', 'is not <rule>'],
    ['silent:48', 'is not <rule>'],
    ['loud:48h', 'no rule loud'],
    ['constructor:48h', 'no rule constructor'],
    ['silent:0h', 'above 0'],
    ['silent:48h:study_a', 'not a program name'],
    ['silent:48h:a+', 'not a program name'],
  ])('When a rule reads %s, then it is refused, saying why', (text, problem) => {
    expect(parseAlertRule(text)).toContain(problem);
  });

  it('When tracking has been off for less than the rule’s hours, then it is not found yet, unlike on the radar', () => {
    const off = participant(1, { trackingOffSince: NOW - 5 * H });
    expect(find([rule('tracking_off:12h')], [off])).toEqual([]);
    expect(find([rule('tracking_off:4h')], [off]).map((f) => f.rule)).toEqual(['tracking_off:4h']);
  });

  it('When a participant is found, then the finding holds a masked token and links to the last trip’s day', () => {
    const silent = participant(2, { lastPush: NOW - 50 * H, lastTripLocal: '2027-01-12T18:04:11-08:00' });
    const quiet = participant(3, { lastPush: NOW - 60 * H });
    const found = find([rule('silent:48h')], [silent, quiet]);
    expect(found).toEqual([
      {
        rule: 'silent:48h',
        userId: quiet.userId,
        program: 'study',
        maskedToken: 'nrel…',
        since: NOW - 60 * H,
        day: 'day-of-since',
      },
      {
        rule: 'silent:48h',
        userId: silent.userId,
        program: 'study',
        maskedToken: 'nrel…',
        since: NOW - 50 * H,
        day: '2027-01-12',
      },
    ]);
  });

  it('When rules watch programs, then they find those programs’ participants, once however many rules find them', () => {
    const study = participant(4, { lastPush: NOW - 50 * H });
    const other = participant(5, { lastPush: NOW - 50 * H, program: 'other' });
    const none = participant(6, { lastPush: NOW - 50 * H, program: null });
    const found = find([rule('silent:48h:study'), rule('silent:2d:study+other')], [study, other, none]);
    expect(found.map((f) => f.userId.slice(-1)).sort()).toEqual(['4', '5']);
    expect(find([rule('silent:48h')], [none])).toHaveLength(1);
  });
});
