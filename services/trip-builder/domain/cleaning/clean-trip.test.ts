import { describe, expect, it } from 'vitest';
import { MotionType } from '../../../../shared/events/emission-enums.js';
import type { LonLat } from '../geo.js';
import type { LocationPoint } from '../observations.js';
import { cleanTrip } from './clean-trip.js';

/** Metres per degree of latitude on e-mission's sphere (radius 6,371 km). */
const M_PER_DEG_LAT = (2 * Math.PI * 6_371_000) / 360;
const at = (metres: number): LonLat => [-122.25, 37.87 + metres / M_PER_DEG_LAT];

const fix = (ts: number, metres: number): LocationPoint => ({
  id: `${ts}`,
  ts,
  writeTs: ts,
  loc: at(metres),
  altitude: 0,
  accuracy: 10,
  filter: 'time',
  timeZone: 'UTC',
});

describe('cleanTrip', () => {
  it('ends a trip whose last fix is a jump at its last good fix, not out at the jump (e-mission: the end place is as bogus as the fix)', () => {
    // A 10-minute walk at 1.3 m/s whose final fix, indoors, lands 600 m off.
    const walk = Array.from({ length: 21 }, (_, i) => fix(1000 + 30 * i, 40 * i));
    const jump = fix(1630, 800 + 600);
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
