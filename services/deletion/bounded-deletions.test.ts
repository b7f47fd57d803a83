import { describe, expect, it } from 'vitest';
import { OverloadedError } from '../../shared/errors/index.js';
import { boundedDeletions } from './delete-user.js';

describe('boundedDeletions', () => {
  it('runs a few deletions at once, queues a few, refuses the rest with 503, and takes more once they end', async () => {
    const finish: (() => void)[] = [];
    let running = 0;
    let most = 0;
    const remove = boundedDeletions(
      async (userId: string) => {
        running += 1;
        most = Math.max(most, running);
        await new Promise<void>((r) => finish.push(r));
        running -= 1;
        return userId;
      },
      { atOnce: 2, queued: 1 },
    );
    const accepted = ['a', 'b', 'c'].map((u) => remove(u));
    await expect(remove('d')).rejects.toBeInstanceOf(OverloadedError);
    await new Promise((r) => setTimeout(r, 10));
    expect(running).toBe(2);
    while (finish.length > 0 || running > 0) {
      finish.shift()?.();
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(await Promise.all(accepted)).toEqual(['a', 'b', 'c']);
    expect(most).toBe(2);
    const later = remove('e');
    await new Promise((r) => setTimeout(r, 5));
    finish.shift()?.();
    expect(await later).toBe('e');
  });
});
