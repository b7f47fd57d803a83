import { describe, expect, it } from 'vitest';
import { retentionDaysOf } from './retention-days.js';

describe('how long raw locations are kept', () => {
  const programs = new Map([
    ['short', { version: 1, itinera: { raw_location_days: 7 } }],
    ['forever', { version: 1, itinera: { raw_location_days: 0 } }],
    ['plain', { version: 1 }],
  ]);
  it("When a participant's program sets its own days, then those count; otherwise the deployment's", () => {
    expect(retentionDaysOf('nrelop_short_default_a', programs, 90)).toBe(7);
    expect(retentionDaysOf('nrelop_forever_default_a', programs, 90)).toBe(0);
    expect(retentionDaysOf('nrelop_plain_default_a', programs, 90)).toBe(90);
    expect(retentionDaysOf('nrelop_unknown_default_a', programs, 90)).toBe(90);
    expect(retentionDaysOf('someone@example.org', programs, 90)).toBe(90);
  });
});
