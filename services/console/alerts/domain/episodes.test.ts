import { describe, expect, it } from 'vitest';
import type { Finding } from './alert-rules.js';
import type { ChannelName } from './delivery.js';
import { planEpisodes, type Episode } from './episodes.js';

const NOW = 1_800_000_000;
const H = 3600;
const BOTH: readonly ChannelName[] = ['webhook', 'email'];

function finding(user: number, fields: Partial<Finding> = {}): Finding {
  return {
    rule: 'silent:48h',
    userId: `00000000-0000-4000-8000-${String(user).padStart(12, '0')}`,
    program: 'study',
    maskedToken: 'nrel…01',
    since: NOW - 50 * H,
    day: '2027-01-13',
    ...fields,
  };
}

function episode(f: Finding, fields: Partial<Episode> = {}): Episode {
  return {
    ...f,
    openedAt: NOW - H,
    endedAt: null,
    lastError: null,
    attempt: 1,
    sendingUntil: null,
    sent: { webhook: NOW - H, email: NOW - H },
    ...fields,
  };
}

const plan = (found: Finding[], stored: Episode[], channels = BOTH) =>
  planEpisodes({ found, stored, now: NOW, channelsOf: () => channels, keepEndedSeconds: 30 * 24 * H });

const users = (list: readonly { userId: string }[]) => list.map((e) => Number(e.userId.slice(-3)));

describe('the episodes of the alert rules', () => {
  it('When a rule first finds a participant, then an episode opens, and its alert is what the opener sends', () => {
    const p = plan([finding(1)], []);
    expect(users(p.open)).toEqual([1]);
    expect([p.retry, p.close, p.resume, p.forget].flat()).toEqual([]);
  });

  it('When the rule finds them again and every channel has the alert, then nothing is sent again', () => {
    const f = finding(1);
    const p = plan([f], [episode(f)]);
    expect(Object.values(p).flat()).toEqual([]);
  });

  it('When the rule no longer finds them, then the episode ends; found again since a new time, a new one opens', () => {
    const first = finding(1);
    const ended = plan([], [episode(first)]);
    expect(users(ended.close)).toEqual([1]);

    // A push ended the silence; a new silence began at that push.
    const again = finding(1, { since: NOW - 49 * H + 600 });
    const next = plan([again], [episode(first, { endedAt: NOW - 10 * H })]);
    expect(next.open).toEqual([again]);
    expect(next.close).toEqual([]);
  });

  it('When an ended episode is found again since the same time, then it goes on without a second alert', () => {
    const f = finding(1);
    const p = plan([f], [episode(f, { endedAt: NOW - 60 })]);
    expect(users(p.resume)).toEqual([1]);
    expect(p.open).toEqual([]);
  });

  it('When a channel failed, then the alert is due again on it, unless another console holds the attempt', () => {
    const f = finding(1);
    const failed = episode(f, { sent: { webhook: NOW - H }, lastError: 'email: refused' });
    expect(users(plan([f], [failed]).retry)).toEqual([1]);

    const underWay = episode(f, { sent: {}, attempt: 2, sendingUntil: NOW + 60 });
    expect(plan([f], [underWay]).retry).toEqual([]);

    const leaseRunOut = episode(f, { sent: {}, attempt: 2, sendingUntil: NOW - 1 });
    expect(users(plan([f], [leaseRunOut]).retry)).toEqual([1]);
  });

  it('When a program has no e-mail recipient, then a sent webhook is all its alert needs', () => {
    const f = finding(1);
    const p = plan([f], [episode(f, { sent: { webhook: NOW - H } })], ['webhook']);
    expect(p.retry).toEqual([]);
  });

  it('When an episode has ended, then its failed alert is not sent any more', () => {
    const f = finding(1);
    const p = plan([], [episode(f, { sent: {}, endedAt: NOW - H })]);
    expect([p.retry, p.close, p.open].flat()).toEqual([]);
  });

  it('When rules differ or the same participant is found by two rules, then each is an episode of its own', () => {
    const silent = finding(1);
    const trackingOff = finding(1, { rule: 'tracking_off:12h', since: NOW - 13 * H });
    const p = plan([silent, trackingOff], [episode(silent)]);
    expect(p.open).toEqual([trackingOff]);
  });

  it('When an episode ended longer ago than alerts are kept, then its row is forgotten', () => {
    const old = episode(finding(1), { endedAt: NOW - 31 * 24 * H });
    const recent = episode(finding(2), { endedAt: NOW - 29 * 24 * H });
    expect(users(plan([], [old, recent]).forget)).toEqual([1]);
  });

  it('When a participant with an open episode is deleted, then the row is forgotten at once, not ended', () => {
    const gone = episode(finding(7));
    const result = planEpisodes({
      found: [],
      stored: [gone, episode(finding(8))],
      now: NOW,
      channelsOf: () => BOTH,
      keepEndedSeconds: 30 * 24 * H,
      known: (userId) => !userId.endsWith('7'),
    });
    expect(users(result.forget)).toEqual([7]);
    expect(users(result.close)).toEqual([8]);
  });
});
