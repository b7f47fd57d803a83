import { describe, expect, it } from 'vitest';
import { createPublisherPool, type UsercachePublisher } from './kafka-usercache-publisher.js';

describe('publisher pool', () => {
  it("When users put, then each user's puts always go through the same producer, and users are spread over all of them", async () => {
    const seen: string[][] = [[], [], [], []];
    const pool = createPublisherPool(
      seen.map((log): UsercachePublisher => ({
        publish: async (userId) => {
          log.push(userId);
          return [];
        },
      })),
    );
    const users = Array.from({ length: 200 }, (_, i) => `6f1c1d2e-0000-4000-8000-${String(i).padStart(12, '0')}`);
    for (const user of [...users, ...users]) await pool.publish(user, []);
    for (const log of seen) expect(log.length).toBeGreaterThan(20);
    for (const user of users) expect(seen.filter((log) => log.includes(user)).length).toBe(1);
  });
});
