import { describe, expect, it } from 'vitest';
import { RateLimitedError } from '../../shared/errors/index.js';
import { createRateLimits, DEFAULT_ALLOWANCES } from './rate-limits.js';

const small = {
  ...DEFAULT_ALLOWANCES,
  'profile-create': { perAddress: 3, perToken: 2 },
};

describe('createRateLimits', () => {
  it('refuses a token past its allowance with 429 and Retry-After, and leaves other tokens alone', async () => {
    const limits = createRateLimits(small);
    await limits.take('profile-create', '203.0.113.7', 'a@example.org');
    await limits.take('profile-create', '203.0.113.7', 'a@example.org');
    const refused = await limits.take('profile-create', '203.0.113.7', 'a@example.org').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect((refused as RateLimitedError).status).toBe(429);
    const retryAfter = Number((refused as RateLimitedError).headers['Retry-After']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The refused call still spent the address's third call; another address is untouched.
    await expect(limits.take('profile-create', '198.51.100.2', 'b@example.org')).resolves.toBeUndefined();
  });

  it('refuses an address cycling through tokens past its allowance', async () => {
    const limits = createRateLimits(small);
    for (const token of ['t1', 't2', 't3']) await limits.take('profile-create', '203.0.113.8', token);
    await expect(limits.take('profile-create', '203.0.113.8', 't4')).rejects.toBeInstanceOf(RateLimitedError);
    // Each action counts on its own.
    await expect(limits.take('export', '203.0.113.8', 't4')).resolves.toBeUndefined();
  });

  it("does not count this machine's own calls", async () => {
    const limits = createRateLimits(small);
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1'])
      for (let i = 0; i < 10; i += 1) await limits.take('profile-create', address, 'same@example.org');
  });
});
