import { describe, expect, it } from 'vitest';
import { newKafkaClusterId } from './server-process.js';

describe('newKafkaClusterId', () => {
  it("When ids are drawn, then each is 22 base64url characters and none begins with '-', which kafka-storage would read as an option", () => {
    const ids = Array.from({ length: 5000 }, () => newKafkaClusterId());
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
