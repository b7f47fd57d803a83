import { describe, expect, it } from 'vitest';
import {
  type AccountRow,
  aggregateCallAuthInForce,
  countsTowardAggregate,
  createHistoryGate,
  historyDaysInForce,
} from './metrics-history.js';
import { createLabelMetricsAccumulator, type LabelTripFact } from './label-metrics.js';

const DAY = 86_400;
const TRIP = Date.UTC(2024, 4, 20, 12) / 1000;

describe('who an aggregate counts', () => {
  it('When an account was created 14 days or more before a trip, then the trip counts; a day less, or a gone account, and it does not', () => {
    expect(countsTowardAggregate(TRIP - 14 * DAY, TRIP, 14)).toBe(true);
    expect(countsTowardAggregate(TRIP - 400 * DAY, TRIP, 14)).toBe(true);
    expect(countsTowardAggregate(TRIP - 13 * DAY, TRIP, 14)).toBe(false);
    // Created after the trip it claims: a backdated put.
    expect(countsTowardAggregate(TRIP + DAY, TRIP, 14)).toBe(false);
    expect(countsTowardAggregate(undefined, TRIP, 14)).toBe(false);
  });

  it('When the rule is off (0 days) or k is 1, then every account counts', () => {
    expect(countsTowardAggregate(TRIP + DAY, TRIP, 0)).toBe(true);
    expect(historyDaysInForce(1, 14)).toBe(0);
    expect(historyDaysInForce(5, 14)).toBe(14);
    expect(historyDaysInForce(5, 0)).toBe(0);
  });

  it('When tokens are e-mails and the gateway listens beyond loopback, then aggregates are never served; on loopback or with real tokens the setting holds', () => {
    expect(aggregateCallAuthInForce('skip', '0.0.0.0', 'no_auth')).toBe('never');
    expect(aggregateCallAuthInForce('skip', '10.0.0.5', 'user_only')).toBe('never');
    expect(aggregateCallAuthInForce('skip', '127.0.0.1', 'no_auth')).toBe('no_auth');
    expect(aggregateCallAuthInForce('skip', 'localhost', 'user_only')).toBe('user_only');
    expect(aggregateCallAuthInForce('token_list', '0.0.0.0', 'no_auth')).toBe('no_auth');
    expect(aggregateCallAuthInForce('secret', '0.0.0.0', 'user_only')).toBe('user_only');
  });
});

/** A look-up that answers when told to, counting its calls. */
function slowLookup(created: Record<string, number>) {
  const pending: (() => void)[] = [];
  const calls: string[] = [];
  return {
    calls,
    release: () => pending.splice(0).forEach((go) => go()),
    lookup: (userId: string) =>
      new Promise<number | undefined>((resolve) => {
        calls.push(userId);
        pending.push(() => resolve(created[userId]));
      }),
  };
}

describe('the history gate over a stream of rows', () => {
  it('When rows arrive before their account is known, then they wait, each account is looked up once, and only the old accounts pass', async () => {
    const { calls, release, lookup } = slowLookup({ old: TRIP - 30 * DAY, fresh: TRIP - DAY });
    const passed: AccountRow[] = [];
    const gate = createHistoryGate(14, lookup, (row: AccountRow) => passed.push(row));
    for (const userId of ['old', 'fresh', 'old', 'gone', 'old']) gate.offer({ userId, startTs: TRIP });
    expect(passed).toEqual([]);
    release();
    await gate.drain();
    expect(passed.map((r) => r.userId)).toEqual(['old', 'old', 'old']);
    expect(calls).toEqual(['old', 'fresh', 'gone']);
    // Known now: passes at once, no new look-up.
    gate.offer({ userId: 'old', startTs: TRIP + DAY });
    expect(passed).toHaveLength(4);
    expect(calls).toHaveLength(3);
  });

  it('When more accounts arrive than look-ups may run, then the rest queue and all are decided by drain', async () => {
    let running = 0;
    let most = 0;
    const lookup = async () => {
      most = Math.max(most, (running += 1));
      await new Promise((r) => setTimeout(r, 1));
      running -= 1;
      return TRIP - 30 * DAY;
    };
    let passed = 0;
    const gate = createHistoryGate(14, lookup, () => (passed += 1), { concurrency: 3 });
    for (let i = 0; i < 20; i += 1) gate.offer({ userId: `u${i}`, startTs: TRIP });
    await gate.drain();
    expect(passed).toBe(20);
    expect(most).toBe(3);
  });

  it('When a look-up fails, then drain fails: nothing is counted without knowing who may be', async () => {
    const gate = createHistoryGate(
      14,
      () => Promise.reject(new Error('cassandra down')),
      () => undefined,
    );
    gate.offer({ userId: 'a', startTs: TRIP });
    await expect(gate.drain()).rejects.toThrow('cassandra down');
  });
});

describe('five made-up accounts against one participant', () => {
  const trip = (userId: string, distance: number): LabelTripFact => ({
    userId,
    localDate: '2024-05-20',
    startTs: TRIP,
    modeConfirm: 'bike',
    purposeConfirm: 'work',
    replacedModeConfirm: 'UNLABELED',
    mode: 'bike',
    distance,
    duration: 600,
    responded: true,
  });
  const ATTACKERS = ['s1', 's2', 's3', 's4', 's5'];
  const VICTIM_M = 7_345;
  /** The attacker's own trips, known to the metre, then the victim's; k = 5 over six accounts. */
  async function attack(minHistoryDays: number) {
    const created: Record<string, number> = { victim: TRIP - 300 * DAY };
    // The attacker registered the five accounts the day before the victim's trip.
    for (const s of ATTACKERS) created[s] = TRIP - DAY;
    const acc = createLabelMetricsAccumulator([{ metric: 'distance', dimensions: ['mode_confirm'] }], { minUsers: 5 });
    const gate = createHistoryGate(minHistoryDays, async (u) => created[u], acc.add);
    const own = ATTACKERS.map((s, i) => trip(s, 1_000 + i));
    for (const t of [...own, trip('victim', VICTIM_M)]) gate.offer(t);
    await gate.drain();
    const day = acc.byMetric()['distance']![0];
    const total = day?.['mode_confirm_bike'] as number | undefined;
    return total === undefined ? undefined : total - own.reduce((n, t) => n + t.distance, 0);
  }

  it('When the five accounts are a day old, then the bin is withheld and total minus own trips recovers nothing', async () => {
    expect(await attack(14)).toBeUndefined();
  });

  it('When the history rule is off, then total minus own trips is the victim to the metre (what the rule prevents)', async () => {
    expect(await attack(0)).toBe(VICTIM_M);
  });
});
