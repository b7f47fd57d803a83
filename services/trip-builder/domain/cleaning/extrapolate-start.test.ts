import { describe, expect, it } from 'vitest';
import { MotionType } from '../../../../shared/events/emission-enums.js';
import { northOf } from '../../../../test/helpers/trip-builder/fixes.js';
import { extrapolateStart } from './extrapolate-start.js';
import type { Fix } from './resample.js';

const { IN_VEHICLE, ON_FOOT } = MotionType;
const fix = (ts: number, metres: number): Fix => ({ ts, loc: northOf(metres), altitude: 0 });
/** Fixes 30 s apart from ts 1000, `speed` m/s north from 0 m; the place is `gap` m south of the first. */
const track = (speed: number, n = 4) => Array.from({ length: n }, (_, i) => fix(1000 + 30 * i, 30 * speed * i));
const placeAt = (gap: number, enterTs = 0) => ({ enterTs, loc: fix(0, -gap).loc });
const startTs = (r: { fixes: Fix[] }) => r.fixes[0]!.ts;

describe('extrapolateStart (clean_and_resample._add_start_point)', () => {
  it('joins the place at the time the section’s median speed needs to cover the gap', () => {
    const fixes = track(10);
    const r = extrapolateStart(fixes, placeAt(300), IN_VEHICLE, fixes[0]!, false);
    expect(startTs(r)).toBeCloseTo(970, 6);
    expect(r.fixes.slice(1)).toEqual(fixes);
    expect(r.markUnknown).toBe(false);
  });

  it('never starts before the user reached the place: half the stay, at most three minutes, after arriving', () => {
    const fixes = track(10);
    expect(startTs(extrapolateStart(fixes, placeAt(300, 990), IN_VEHICLE, fixes[0]!, false))).toBe(995);
    expect(startTs(extrapolateStart(fixes, placeAt(30_000, 100), IN_VEHICLE, fixes[0]!, false))).toBe(280);
    expect(startTs(extrapolateStart(fixes, placeAt(300, 1000), IN_VEHICLE, fixes[0]!, false))).toBe(1000);
  });

  it('marks the section unknown when the joining step is an outlier among its own steps', () => {
    const fixes = track(10);
    expect(extrapolateStart(fixes, placeAt(300, 990), IN_VEHICLE, fixes[0]!, false).markUnknown).toBe(true);
  });

  it('covers a long gap before a short, slightly fast walk at 1 m/s, as e-mission’s code does', () => {
    const fixes = track(1.8, 3);
    expect(startTs(extrapolateStart(fixes, placeAt(500), ON_FOOT, fixes[0]!, false))).toBeCloseTo(500, 6);
    expect(startTs(extrapolateStart(fixes, placeAt(500), IN_VEHICLE, fixes[0]!, false))).toBeCloseTo(
      1000 - 500 / 1.8,
      6,
    );
  });

  it('uses the median of the non-zero speeds when the median is zero', () => {
    const fixes = [fix(1000, 0), fix(1030, 0), fix(1060, 0), fix(1090, 90)];
    expect(startTs(extrapolateStart(fixes, placeAt(300), IN_VEHICLE, fixes[0]!, false))).toBeCloseTo(900, 6);
  });

  it('leaves the section alone when its place is as bogus as its dropped first fix, or the gap is nil', () => {
    const fixes = track(10);
    const jumped = fix(990, -50);
    expect(extrapolateStart(fixes, placeAt(60), IN_VEHICLE, jumped, true).fixes).toEqual(fixes);
    expect(extrapolateStart(fixes, placeAt(0), IN_VEHICLE, fixes[0]!, false).fixes).toEqual(fixes);
  });
});
