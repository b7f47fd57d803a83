import { describe, expect, it } from 'vitest';
import { once, oncePerKey } from './once.js';

/** A start whose attempts the test settles by hand. */
function controlled() {
  const attempts: { resolve: (v: number) => void; reject: (e: Error) => void }[] = [];
  const start = () =>
    new Promise<number>((resolve, reject) => {
      attempts.push({ resolve, reject });
    });
  return { attempts, start };
}

describe('once', () => {
  it('When many call at the same time, then one attempt starts and all get its result, which is kept', async () => {
    const { attempts, start } = controlled();
    const connect = once(start);
    const calls = [connect(), connect(), connect()];
    expect(attempts).toHaveLength(1);
    attempts[0]!.resolve(7);
    expect(await Promise.all(calls)).toEqual([7, 7, 7]);
    expect(await connect()).toBe(7);
    expect(attempts).toHaveLength(1);
  });

  it('When the attempt fails, then its callers get the failure and the next call tries again', async () => {
    const { attempts, start } = controlled();
    const connect = once(start);
    const first = connect();
    attempts[0]!.reject(new Error('broker away'));
    await expect(first).rejects.toThrow('broker away');
    const second = connect();
    expect(attempts).toHaveLength(2);
    attempts[1]!.resolve(1);
    expect(await second).toBe(1);
  });

  it('When start throws at once, then the call rejects and the next call tries again', async () => {
    let calls = 0;
    const connect = once(() => {
      calls += 1;
      if (calls === 1) throw new Error('bad options');
      return Promise.resolve(calls);
    });
    await expect(connect()).rejects.toThrow('bad options');
    expect(await connect()).toBe(2);
  });

  it('When a kept success is forgotten, then the next call starts again', async () => {
    const { attempts, start } = controlled();
    const connect = once(start);
    const first = connect();
    attempts[0]!.resolve(1);
    await first;
    connect.forget();
    const second = connect();
    expect(attempts).toHaveLength(2);
    attempts[1]!.resolve(2);
    expect(await second).toBe(2);
  });

  it('When an attempt forgotten while running fails later, then it does not drop the newer attempt', async () => {
    const { attempts, start } = controlled();
    const connect = once(start);
    const stale = connect();
    connect.forget();
    const fresh = connect();
    attempts[0]!.reject(new Error('old connection'));
    await expect(stale).rejects.toThrow('old connection');
    attempts[1]!.resolve(2);
    expect(await fresh).toBe(2);
    expect(await connect()).toBe(2);
    expect(attempts).toHaveLength(2);
  });
});

describe('oncePerKey', () => {
  it('When keys are asked concurrently, then each is loaded once, and a failed key is loaded again', async () => {
    const loads: string[] = [];
    let failNext = true;
    const lookup = oncePerKey(async (subject: string) => {
      loads.push(subject);
      if (subject === 'b' && failNext) {
        failNext = false;
        throw new Error('registry away');
      }
      return subject.toUpperCase();
    });
    expect(await Promise.all([lookup('a'), lookup('a')])).toEqual(['A', 'A']);
    await expect(lookup('b')).rejects.toThrow('registry away');
    expect(await lookup('b')).toBe('B');
    expect(await lookup('a')).toBe('A');
    expect(loads).toEqual(['a', 'b', 'b']);
  });
});
