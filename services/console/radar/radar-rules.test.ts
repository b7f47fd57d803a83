import { describe, expect, it } from 'vitest';
import { participantRow } from '../../../test/helpers/console/participant-row.js';
import type { ParticipantRow } from '../participants/query-participants.js';
import { compareAppVersions, radarFindings, radarPage } from './radar-rules.js';
import { RadarQuery } from './radar-schemas.js';

const NOW = 1_800_000_000;
const H = 3600;

const participant = (id: number, fields: Partial<ParticipantRow>) => participantRow(id, NOW, fields);

const fine = participant(1, {});
const silent = participant(2, { lastPush: NOW - 72 * H });
const neverPushed = participant(3, { created: NOW - 50 * H, firstPush: null, lastPush: null, lastData: null });
const noLocations = participant(4, { lastData: NOW - H, lastLocation: NOW - 60 * H });
// Tracking off and, as follows, no location since: found once, as tracking off.
const trackingOff = participant(5, { trackingOffSince: NOW - 5 * H, lastLocation: NOW - 70 * H });
const dayPushedLate = participant(6, { lastPush: NOW - H, lastData: NOW - 80 * H, lastLocation: NOW - 80 * H });
const otherProgram = participant(7, { program: 'other', lastPush: NOW - 100 * H });

const rows = [fine, silent, neverPushed, noLocations, trackingOff, dayPushedLate, otherProgram];

describe('the radar rules', () => {
  it('When phones go quiet, lose locations or stop tracking, then each rule finds exactly those, since when it began', () => {
    const found = radarFindings(rows, { now: NOW, hours: 48, scope: undefined });
    expect(found.map((f) => [f.userId.slice(-1), f.rule, (NOW - f.since) / H])).toEqual([
      ['7', 'silent', 100],
      ['2', 'silent', 72],
      ['4', 'no_locations', 60],
      ['3', 'silent', 50],
      ['5', 'tracking_off', 5],
    ]);
  });

  it('When a day is pushed late, then it is no alarm: locations are judged by the phone’s own clock', () => {
    const found = radarFindings([dayPushedLate], { now: NOW, hours: 48, scope: undefined });
    expect(found).toEqual([]);
  });

  it('When the silence asked for is longer, then fewer are silent; other programs are never seen from a scope', () => {
    const found = radarFindings(rows, { now: NOW, hours: 80, scope: ['study'] });
    expect(found.map((f) => [f.userId.slice(-1), f.rule])).toEqual([['5', 'tracking_off']]);
  });

  it('When a page is asked for, then it counts every rule, keeps the one asked, pages, and masks tokens', () => {
    const found = radarFindings(rows, { now: NOW, hours: 48, scope: undefined });
    const page = radarPage(found, RadarQuery.parse({ rule: 'silent', size: '2', page: '0' }), NOW - 10);
    expect(page.counts).toEqual({ silent: 3, no_locations: 1, tracking_off: 1, not_labelling: 0, outdated_app: 0 });
    expect(page.total).toBe(3);
    expect(page.rows.map((r) => r.userId.slice(-1))).toEqual(['7', '2']);
    expect(page.rows.every((r) => r.token.includes('…') && r.token.length < 12)).toBe(true);
    const newestFirst = radarPage(found, RadarQuery.parse({ dir: 'desc' }), NOW - 10);
    expect(newestFirst.rows[0]!.rule).toBe('tracking_off');
  });

  it('When a participant runs an older app than another of the program, then outdated_app finds them, per program', () => {
    const rows = [
      participant(1, { appVersion: '1.9.2' }),
      participant(2, { appVersion: '1.10.0' }),
      participant(3, { appVersion: '1.9.2', program: 'other' }),
      participant(4, { appVersion: null }),
      // A tester's beta build puts nobody behind.
      participant(5, { appVersion: '2.0.0-beta', token: 'nrelop_study_default_test_beta5' }),
    ];
    const found = radarFindings(rows, { now: NOW, hours: 48, scope: undefined }).filter(
      (f) => f.rule === 'outdated_app',
    );
    expect(found.map((f) => [f.userId.slice(-1), f.since])).toEqual([['1', NOW - 29 * 24 * H]]);
    // A program's admin sees their own behind, judged against the whole program.
    expect(radarFindings(rows, { now: NOW, hours: 48, scope: ['other'] }).some((f) => f.rule === 'outdated_app')).toBe(
      false,
    );
  });

  it('When app versions are compared, then they order as their numbers read', () => {
    expect(compareAppVersions('1.10.0', '1.9.2')).toBeGreaterThan(0);
    expect(compareAppVersions('2.1', '2.1.3')).toBeLessThan(0);
    expect(compareAppVersions('2.1.3', '2.1.3')).toBe(0);
  });

  it('When trips go on for the hours set after the last label, then not_labelling finds the participant since then', () => {
    const rows = [
      participant(1, { lastTrip: NOW - H, lastLabel: NOW - 50 * H }),
      participant(2, { lastTrip: NOW - H, lastLabel: NOW - 10 * H }),
      // Never labelled: counted from the first push.
      participant(3, { lastTrip: NOW - H, lastLabel: null }),
      // No trip since labelling: nothing to label.
      participant(4, { lastTrip: NOW - 60 * H, lastLabel: NOW - 50 * H }),
    ];
    const found = radarFindings(rows, { now: NOW, hours: 48, scope: undefined }).filter(
      (f) => f.rule === 'not_labelling',
    );
    expect(found.map((f) => [f.userId.slice(-1), f.since])).toEqual([
      ['3', NOW - 29 * 24 * H],
      ['1', NOW - 50 * H],
    ]);
  });

  it('When a subgroup is asked for, then only its participants are counted and listed', () => {
    const rows = [
      participant(1, { lastPush: NOW - 50 * H, token: 'nrelop_study_city_aaaa1' }),
      participant(2, { lastPush: NOW - 50 * H, token: 'nrelop_study_campus_bbbb2' }),
      participant(3, { lastPush: NOW - 50 * H, token: 'not-a-program-token' }),
    ];
    const findings = radarFindings(rows, { now: NOW, hours: 48, scope: undefined });
    const city = radarPage(findings, RadarQuery.parse({ subgroup: 'city' }), NOW);
    expect(city.rows.map((r) => r.userId.slice(-1))).toEqual(['1']);
    expect(city.counts.silent).toBe(1);
    expect(radarPage(findings, RadarQuery.parse({}), NOW).counts.silent).toBe(3);
  });
});
