import type { ParameterizedContext } from 'koa';
import type { GatewayState } from '../gateway-state.js';
import { describe, expect, it } from 'vitest';
import { putAdmission } from './put-admission.js';

/** A call to `route` whose headers declare `bytes` of body (or, with null, a chunked body of unknown length). */
const ctx = (route: string, bytes: number | null = 0) => {
  const headers: Record<string, string> =
    bytes === null ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(bytes) };
  return {
    state: { route },
    get: (field: string) => headers[field] ?? '',
  } as unknown as ParameterizedContext<GatewayState>;
};

describe('put admission', () => {
  it('When more puts arrive than may run, then at most that many run and the rest start in arrival order', async () => {
    const admit = putAdmission({ maxConcurrent: 2 });
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const finish: (() => void)[] = [];
    const calls = Array.from({ length: 6 }, (_, i) =>
      admit(ctx('/usercache/put'), async () => {
        started.push(i);
        running += 1;
        peak = Math.max(peak, running);
        await new Promise<void>((r) => finish.push(r));
        running -= 1;
      }),
    );
    for (let done = 0; done < 6; done += 1) {
      await new Promise((r) => setTimeout(r, 5));
      finish.shift()?.();
    }
    await Promise.all(calls);
    expect(peak).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('When a put fails, then its slot is released; reads never wait', async () => {
    const admit = putAdmission({ maxConcurrent: 1 });
    await expect(
      admit(ctx('/usercache/put'), async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    let ran = false;
    await admit(ctx('/usercache/putone'), async () => {
      ran = true;
    });
    expect(ran).toBe(true);
    const slow = admit(ctx('/usercache/put'), () => new Promise((r) => setTimeout(r, 50)));
    let readRan = false;
    await admit(ctx('/usercache/get'), async () => {
      readRan = true;
    });
    expect(readRan).toBe(true);
    await slow;
  });

  it('When the waiting puts would hold more bytes than allowed, then the next one is refused with 503 at once', async () => {
    const admit = putAdmission({ maxConcurrent: 1, maxWaitingBytes: 100 });
    let finish = () => undefined as void;
    const running = admit(ctx('/usercache/put', 10), () => new Promise<void>((r) => (finish = r)));
    const queued = admit(ctx('/usercache/put', 80), async () => undefined);
    await expect(admit(ctx('/usercache/put', 30), async () => undefined)).rejects.toMatchObject({
      status: 503,
      headers: { 'Retry-After': '30' },
    });
    finish();
    await Promise.all([running, queued]);
  });
});

describe('put admission by size', () => {
  it('When small puts arrive, then several run at once within the byte bound, and a big one waits its turn in order', async () => {
    const admit = putAdmission({ maxConcurrent: 8, maxActiveBytes: 100 });
    const finish: (() => void)[] = [];
    const started: string[] = [];
    const run = (name: string, bytes: number) =>
      admit(ctx('/usercache/put', bytes), () => {
        started.push(name);
        return new Promise<void>((r) => finish.push(r));
      });
    const all = [run('a', 30), run('b', 30), run('big', 90), run('c', 20)];
    await new Promise((r) => setImmediate(r));
    // a and b fit together; big does not, and c, behind it, waits: arrival order is kept.
    expect(started).toEqual(['a', 'b']);
    finish.shift()!();
    finish.shift()!();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a', 'b', 'big']);
    finish.shift()!();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a', 'b', 'big', 'c']);
    finish.shift()!();
    await Promise.all(all);
  });

  it('When a put is larger than the whole bound, then it still runs once nothing else does', async () => {
    const admit = putAdmission({ maxConcurrent: 8, maxActiveBytes: 100 });
    let ran = false;
    await admit(ctx('/usercache/put', 500), async () => {
      ran = true;
    });
    expect(ran).toBe(true);
  });

  it('When a put declares no length, then it counts as the whole bound and runs alone', async () => {
    const admit = putAdmission({ maxConcurrent: 8, maxActiveBytes: 100 });
    const finish: (() => void)[] = [];
    const started: string[] = [];
    const run = (name: string, bytes: number | null) =>
      admit(ctx('/usercache/put', bytes), () => {
        started.push(name);
        return new Promise<void>((r) => finish.push(r));
      });
    const all = [run('small', 10), run('chunked', null), run('after', 10)];
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['small']);
    finish.shift()!();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['small', 'chunked']);
    finish.shift()!();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['small', 'chunked', 'after']);
    finish.shift()!();
    await Promise.all(all);
  });
});

describe('a put stepping aside', () => {
  it('When a put steps aside, then the next one runs, and the put rejoins ahead of later arrivals', async () => {
    const admit = putAdmission({ maxConcurrent: 1 });
    const started: string[] = [];
    const finish: Record<string, () => void> = {};
    const run = (
      name: string,
      body: (c: ParameterizedContext<GatewayState>) => Promise<void> = async () => undefined,
    ) => {
      const c = ctx('/usercache/put', 10);
      return admit(c, async () => {
        started.push(name);
        await body(c);
        await new Promise<void>((r) => (finish[name] = r));
      });
    };
    let rejoined = false;
    let arrive = () => undefined as void;
    const slow = run('slow', async (c) => {
      c.state.putSlot!.stepAside();
      await new Promise<void>((r) => (arrive = r));
      await c.state.putSlot!.rejoin(10);
      rejoined = true;
    });
    await new Promise((r) => setImmediate(r));
    const fast = run('fast');
    await new Promise((r) => setImmediate(r));
    // The slow upload holds no place: the next put runs while its bytes arrive.
    expect(started).toEqual(['slow', 'fast']);
    arrive();
    const later = run('later');
    await new Promise((r) => setImmediate(r));
    expect(rejoined).toBe(false);
    finish['fast']!();
    await new Promise((r) => setImmediate(r));
    // Read, it takes the next place before the put that arrived after it.
    expect(rejoined).toBe(true);
    expect(started).toEqual(['slow', 'fast']);
    finish['slow']!();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['slow', 'fast', 'later']);
    finish['later']!();
    await Promise.all([slow, fast, later]);
  });

  it('When a put steps aside and then fails, then its place is given back once, not twice', async () => {
    const admit = putAdmission({ maxConcurrent: 1 });
    const aside = ctx('/usercache/put', 10);
    await expect(
      admit(aside, async () => {
        aside.state.putSlot!.stepAside();
        throw new Error('the body timed out');
      }),
    ).rejects.toThrow('the body timed out');
    let running = 0;
    let peak = 0;
    const finish: (() => void)[] = [];
    const run = () =>
      admit(ctx('/usercache/put', 10), async () => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise<void>((r) => finish.push(r));
        running -= 1;
      });
    const both = [run(), run()];
    await new Promise((r) => setImmediate(r));
    finish.shift()!();
    await new Promise((r) => setImmediate(r));
    finish.shift()!();
    await Promise.all(both);
    expect(peak).toBe(1);
  });

  it('When a put rejoins, then it counts the length it was read at and is never refused for the queue', async () => {
    const admit = putAdmission({ maxConcurrent: 8, maxActiveBytes: 100, maxWaitingBytes: 50 });
    let finishOther = () => undefined as void;
    let arrive = () => undefined as void;
    let rejoined = false;
    const aside = ctx('/usercache/put', 10);
    const slow = admit(aside, async () => {
      aside.state.putSlot!.stepAside();
      await new Promise<void>((r) => (arrive = r));
      // Read at 90 bytes (the header said 10): beside the 20-byte put running, that passes the bound.
      await aside.state.putSlot!.rejoin(90);
      rejoined = true;
    });
    await new Promise((r) => setImmediate(r));
    const other = admit(ctx('/usercache/put', 20), () => new Promise<void>((r) => (finishOther = r)));
    await new Promise((r) => setImmediate(r));
    // New puts fill the queue's bytes; the rejoining put is not refused for it.
    const queued = admit(ctx('/usercache/put', 45), async () => undefined);
    arrive();
    await new Promise((r) => setImmediate(r));
    expect(rejoined).toBe(false);
    finishOther();
    await Promise.all([slow, other, queued]);
    expect(rejoined).toBe(true);
  });
});
