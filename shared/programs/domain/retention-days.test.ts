import { describe, expect, it } from 'vitest';
import { retentionDaysOf, storedRetentionDays, UnreadableRetention, type ProgramRetention } from './retention-days.js';

describe('how long raw locations are kept', () => {
  const programs = new Map<string, ProgramRetention>([
    ['short', 7],
    ['forever', 0],
    ['plain', undefined],
    ['torn', new UnreadableRetention('not JSON')],
  ]);
  it("When a participant's program sets its own days, then those count; otherwise the deployment's", () => {
    expect(retentionDaysOf('nrelop_short_default_a', programs, 90)).toBe(7);
    expect(retentionDaysOf('nrelop_forever_default_a', programs, 90)).toBe(0);
    expect(retentionDaysOf('nrelop_plain_default_a', programs, 90)).toBe(90);
    expect(retentionDaysOf('nrelop_unknown_default_a', programs, 90)).toBe(90);
    expect(retentionDaysOf('someone@example.org', programs, 90)).toBe(90);
  });

  it("When a participant's program's days cannot be read, then no number of days is given for them", () => {
    expect(retentionDaysOf('nrelop_torn_default_a', programs, 90)).toBeInstanceOf(UnreadableRetention);
  });
});

describe('the days a stored document sets', () => {
  it('When the document fails today’s schema elsewhere, then its days are still read', () => {
    const refusedElsewhere = { version: 1, opcode: { subgroups: ['a_b'] }, itinera: { raw_location_days: 30 } };
    expect(storedRetentionDays(JSON.stringify(refusedElsewhere))).toBe(30);
    expect(storedRetentionDays(JSON.stringify({ version: 1, itinera: { raw_location_days: 0, future: 1 } }))).toBe(0);
  });

  it('When the document sets no days, then it says nothing (the deployment’s count)', () => {
    expect(storedRetentionDays(JSON.stringify({ version: 1 }))).toBeUndefined();
    expect(storedRetentionDays(JSON.stringify({ version: 1, itinera: { closed: true } }))).toBeUndefined();
  });

  it('When the days or the document cannot be read, then it is unreadable, saying why', () => {
    for (const [document, why] of [
      ['{"version": 1, "itin', /not JSON/],
      ['[1]', /not a JSON object/],
      ['{"itinera": "short"}', /itinera is not an object/],
      ['{"itinera": {"raw_location_days": "7"}}', /raw_location_days/],
      ['{"itinera": {"raw_location_days": -1}}', /raw_location_days/],
    ] as const) {
      const read = storedRetentionDays(document);
      expect(read).toBeInstanceOf(UnreadableRetention);
      expect((read as UnreadableRetention).reason).toMatch(why);
    }
  });
});
