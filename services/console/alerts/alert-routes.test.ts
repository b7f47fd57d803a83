import { describe, expect, it } from 'vitest';
import { alertList, type AlertLog } from './alert-routes.js';
import { AlertsQuery } from './alert-schemas.js';
import type { Episode } from './domain/episodes.js';

const episode = (user: number, program: string | null, fields: Partial<Episode> = {}): Episode => ({
  rule: 'silent:48h',
  userId: `00000000-0000-4000-8000-${String(user).padStart(12, '0')}`,
  program,
  maskedToken: `nrel…${user}`,
  since: 100,
  day: '2027-01-13',
  openedAt: 1000 + user,
  endedAt: null,
  lastError: null,
  attempt: 1,
  sendingUntil: null,
  sent: { webhook: 1000 + user },
  ...fields,
});

const log: AlertLog = {
  channels: ['webhook'],
  rules: [
    { id: 'silent:48h', kind: 'silent', hours: 48, programs: undefined },
    { id: 'tracking_off:12h', kind: 'tracking_off', hours: 12, programs: ['a', 'b'] },
    { id: 'no_locations:24h', kind: 'no_locations', hours: 24, programs: ['b'] },
  ],
  recent: () => ({
    asOf: 2000,
    episodes: [episode(1, 'a'), episode(2, 'b', { endedAt: 1500 }), episode(3, null), episode(4, 'a')],
  }),
};

describe('the alerts list', () => {
  it('When the deployment’s operators ask, then they see every alert, the latest opened first', () => {
    const list = alertList(log, AlertsQuery.parse({}), undefined);
    expect(list.rows.map((r) => r.userId.slice(-1))).toEqual(['4', '3', '2', '1']);
    expect(list.rows[0]).toMatchObject({ token: 'nrel…4', sent: { webhook: 1004, email: null }, attempts: 1 });
    expect(list.enabled).toBe(true);
  });

  it('When a program’s admin asks, then they see their program’s alerts and rules only, named by their program', () => {
    const list = alertList(log, AlertsQuery.parse({}), ['a']);
    expect(list.rows.map((r) => r.userId.slice(-1))).toEqual(['4', '1']);
    expect(list.rules).toEqual([
      { rule: 'silent:48h', programs: ['a'] },
      { rule: 'tracking_off:12h', programs: ['a'] },
    ]);
  });

  it('When open or ended ones are asked for, then only those come, up to the size asked', () => {
    expect(alertList(log, AlertsQuery.parse({ state: 'ended' }), undefined).rows.map((r) => r.program)).toEqual(['b']);
    const open = alertList(log, AlertsQuery.parse({ state: 'open', size: '2' }), undefined);
    expect([open.total, open.rows.length]).toEqual([3, 2]);
  });

  it('When a participant was deleted, then their alerts are listed nowhere', () => {
    const known = (userId: string) => !userId.endsWith('1');
    const list = alertList(log, AlertsQuery.parse({}), undefined, known);
    expect(list.rows.map((r) => r.userId.slice(-1))).toEqual(['4', '3', '2']);
  });
});
