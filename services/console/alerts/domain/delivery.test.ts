import { describe, expect, it } from 'vitest';
import { isDue, retryDelaySeconds } from './delivery.js';

describe('when a message is due again', () => {
  it('When attempts keep failing, then the wait doubles from a minute up to an hour', () => {
    expect([1, 2, 3, 6, 7, 20].map(retryDelaySeconds)).toEqual([60, 120, 240, 1920, 3600, 3600]);
  });

  it('When a failed attempt holds its wait, then it is not due until the wait is over, and never once sent', () => {
    const waiting = { attempt: 1, sendingUntil: 1060, sent: { email: 1000 } };
    expect(isDue(waiting, ['webhook', 'email'], 1030)).toBe(false);
    expect(isDue(waiting, ['webhook', 'email'], 1060)).toBe(true);
    expect(isDue(waiting, ['email'], 1060)).toBe(false);
  });
});
