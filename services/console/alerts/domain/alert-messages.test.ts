import { describe, expect, it } from 'vitest';
import { alertMessage, describeRule, digestMessage, MAX_ALERT_LINES } from './alert-messages.js';
import type { AlertRule, Finding } from './alert-rules.js';

const NOW = 1_800_000_000;
const ctx = { consoleUrl: 'https://console.example.org', formatTime: (ts: number) => `t${ts}` };

const finding = (user: number, fields: Partial<Finding> = {}): Finding => ({
  rule: 'silent:48h',
  userId: `00000000-0000-4000-8000-${String(user).padStart(12, '0')}`,
  program: 'study',
  maskedToken: `nrel…${user}`,
  since: NOW - user,
  day: '2027-01-13',
  ...fields,
});

/** A latitude or longitude as a phone reports it, or a pair of them. */
const COORDINATES = /-?\d{1,3}\.\d{4,}/;

describe('the alert messages', () => {
  it('When an alert is written, then it lists each participant by rule, masked token, since when and a link', () => {
    const message = alertMessage('study', [finding(1), finding(2)], ctx);
    expect(message.subject).toBe('Itinera alert: 2 participants of study stopped collecting');
    expect(message.lines).toEqual([
      "The radar's alert rules found 2 participants of study:",
      `- silent for 48 h: nrel…2, since t${NOW - 2}: https://console.example.org/admin/day.html?user=00000000-0000-4000-8000-000000000002&date=2027-01-13`,
      `- silent for 48 h: nrel…1, since t${NOW - 1}: https://console.example.org/admin/day.html?user=00000000-0000-4000-8000-000000000001&date=2027-01-13`,
      'Radar: https://console.example.org/admin/radar.html',
    ]);
    expect([message.subject, ...message.lines].join('\n')).not.toMatch(COORDINATES);
  });

  it('When many are found at once, then the alert lists a few and counts the rest', () => {
    const many = Array.from({ length: MAX_ALERT_LINES + 5 }, (_, i) => finding(i + 1, { program: null }));
    const message = alertMessage(null, many, ctx);
    expect(message.subject).toContain('of no program');
    expect(message.lines).toHaveLength(MAX_ALERT_LINES + 3);
    expect(message.lines.at(-2)).toBe('- and 5 more');
  });

  it('When a digest is written, then it counts each rule watching the program, and says when none finds anyone', () => {
    const rules: AlertRule[] = [
      { id: 'silent:48h', kind: 'silent', hours: 48, programs: undefined },
      { id: 'tracking_off:12h', kind: 'tracking_off', hours: 12, programs: ['study'] },
      { id: 'no_locations:24h', kind: 'no_locations', hours: 24, programs: ['other'] },
    ];
    const digest = digestMessage(
      'study',
      '2027-01-15',
      [finding(1), finding(1, { rule: 'tracking_off:12h' })],
      rules,
      ctx,
    );
    expect(digest.subject).toBe('Itinera daily digest of study, 2027-01-15: 1 participant found');
    expect(digest.lines[0]).toBe('Daily digest of study, 2027-01-15. silent for 48 h: 1; tracking off for 12 h: 1.');
    expect(digest.lines).toHaveLength(4);
    const empty = digestMessage('study', '2027-01-15', [], rules, ctx);
    expect(empty.lines[1]).toBe('No participant is found by the alert rules.');
  });

  it('When a rule is named, then its id reads as words', () => {
    expect(describeRule('no_locations:1.5h')).toBe('no locations for 1.5 h');
  });
});
