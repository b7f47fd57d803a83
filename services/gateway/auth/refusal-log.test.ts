import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RefusalTally } from '../../../shared/tables/console-tokens.js';
import { createRefusalLog, type RefusalLogOptions } from './refusal-log.js';

interface Write {
  token: string;
  reason: string;
  ts: number;
  tally: RefusalTally | undefined;
}

const T0 = Date.UTC(2025, 5, 10, 12, 0, 0);

function setup(options: RefusalLogOptions = {}) {
  const writes: Write[] = [];
  let clock = T0;
  const log = createRefusalLog(
    {
      async recordRefusal(token, reason, ts, tally) {
        writes.push({ token, reason, ts, tally });
      },
    },
    { sweepMs: 0, now: () => clock, ...options },
  );
  return { log, writes, advance: (ms: number) => (clock += ms) };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('refusal log', () => {
  it('When one token is refused 200 times within a minute, then it is written once, and its tally with the next refusal after the minute', () => {
    const { log, writes, advance } = setup();
    for (let i = 0; i < 200; i += 1) {
      log.refused('nrelop_study_default_typo', 'not in the token list, nor issued');
      advance(100);
    }
    expect(writes).toEqual([
      {
        token: 'nrelop_study_default_typo',
        reason: 'not in the token list, nor issued',
        ts: T0 / 1000,
        tally: { attempts: 1, firstTs: T0 / 1000 },
      },
    ]);
    advance(60_000);
    log.refused('nrelop_study_default_typo', 'not in the token list, nor issued');
    expect(writes).toHaveLength(2);
    expect(writes[1]!.tally).toEqual({ attempts: 201, firstTs: T0 / 1000 });
  });

  it('When many distinct tokens are refused, then at most maxTokensPerMinute are written in any minute', () => {
    const { log, writes, advance } = setup({ maxTokensPerMinute: 5 });
    for (let i = 0; i < 50; i += 1) log.refused(`forged-${i}`, 'no accepted secret prefix');
    expect(writes.map((w) => w.token)).toEqual(['forged-0', 'forged-1', 'forged-2', 'forged-3', 'forged-4']);
    advance(30_000);
    for (let i = 50; i < 100; i += 1) log.refused(`forged-${i}`, 'no accepted secret prefix');
    expect(writes).toHaveLength(5);
    advance(30_000);
    // The window slid past the first writes: the budget is back, for whichever tokens are refused next.
    log.refused('forged-7', 'no accepted secret prefix');
    expect(writes.at(-1)).toMatchObject({ token: 'forged-7', tally: { attempts: 2 } });
  });

  it('When more tokens are refused than are tracked, then the least recent are forgotten, not kept', () => {
    const { log, writes } = setup({ maxTracked: 2 });
    log.refused('a', 'r');
    log.refused('b', 'r');
    log.refused('a', 'r');
    expect(writes).toHaveLength(2);
    log.refused('c', 'r'); // evicts b, the least recently refused
    log.refused('b', 'r'); // a new tally: its throttle is gone with it (the write budget still bounds the writes)
    expect(writes.map((w) => [w.token, w.tally?.attempts])).toEqual([
      ['a', 1],
      ['b', 1],
      ['c', 1],
      ['b', 1],
    ]);
  });

  it('When a token is longer than 128 characters, then its first 128 are its record', () => {
    const { log, writes } = setup();
    const long = 'nrelop_' + 'x'.repeat(300);
    log.refused(long, 'longer than 512 characters');
    log.refused(long.slice(0, 128) + 'different tail', 'r');
    expect(writes).toHaveLength(1);
    expect(writes[0]!.token).toBe(long.slice(0, 128));
  });

  it('When a day ends, then the next refusal starts a new row, still within the per-token throttle', () => {
    const { log, writes, advance } = setup();
    advance(12 * 3600_000 - 10_000); // 10 s before midnight UTC
    log.refused('t', 'r');
    advance(20_000);
    log.refused('t', 'r');
    expect(writes).toHaveLength(1);
    advance(60_000);
    log.refused('t', 'r');
    expect(writes[1]!.tally).toEqual({ attempts: 2, firstTs: writes[1]!.ts - 60 });
    expect(Math.floor(writes[1]!.ts / 86_400)).toBe(Math.floor(writes[0]!.ts / 86_400) + 1);
  });

  it('When a tally grew after its last write, then the sweep writes it once the minute is over, and only then', async () => {
    vi.useFakeTimers({ now: T0 });
    const writes: Array<RefusalTally | undefined> = [];
    const log = createRefusalLog(
      { recordRefusal: async (_token, _reason, _ts, tally) => void writes.push(tally) },
      { sweepMs: 15_000 },
    );
    try {
      for (let i = 0; i < 3; i += 1) log.refused('t', 'r');
      expect(writes).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(45_000);
      expect(writes).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(15_000);
      expect(writes).toEqual([
        { attempts: 1, firstTs: T0 / 1000 },
        { attempts: 3, firstTs: T0 / 1000 },
      ]);
      await vi.advanceTimersByTimeAsync(300_000);
      expect(writes).toHaveLength(2);
    } finally {
      log.close();
    }
  });

  it('When a write fails, then the refusal neither throws nor waits, and the error goes to onError', async () => {
    const errors: unknown[] = [];
    const log = createRefusalLog(
      {
        recordRefusal: () => Promise.reject(new Error('Cassandra did not answer')),
      },
      { sweepMs: 0, onError: (err) => errors.push(err) },
    );
    expect(() => log.refused('t', 'r')).not.toThrow();
    await new Promise((r) => setImmediate(r));
    expect(errors).toEqual([new Error('Cassandra did not answer')]);
  });
});
