import { describe, expect, it } from 'vitest';
import { MotionType } from '../../../../shared/events/emission-enums.js';
import { fixAt } from '../../../../test/helpers/trip-builder/fixes.js';
import { cleanTrip } from './clean-trip.js';

describe('cleanTrip', () => {
  it('ends a trip whose last fix is a jump at its last good fix, not out at the jump (e-mission: the end place is as bogus as the fix)', () => {
    // A 10-minute walk at 1.3 m/s whose final fix, indoors, lands 600 m off.
    const walk = Array.from({ length: 21 }, (_, i) => fixAt(1000 + 30 * i, 40 * i));
    const jump = fixAt(1630, 800 + 600);
    const points = [...walk, jump];
    const cleaned = cleanTrip(
      points,
      [{ startIndex: 0, endIndex: points.length - 1, mode: MotionType.WALKING }],
      undefined,
    );
    const section = cleaned!.sections[0]!;
    expect(section.endTs).toBe(walk.at(-1)!.ts);
    expect(section.endLoc).toEqual(walk.at(-1)!.loc);
    expect(section.distance).toBeCloseTo(800, 0);
  });
});
