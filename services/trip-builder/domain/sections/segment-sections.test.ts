import { describe, expect, it } from 'vitest';
import { MotionType, Transition } from '../../../../shared/events/emission-enums.js';
import { type LocationPoint, type MotionPoint, toObservations } from '../observations.js';
import { loadRealDay } from '../../../../test/helpers/real-days.js';
import { fixAt } from '../../../../test/helpers/trip-builder/fixes.js';
import { ANDROID_EVIDENCE, highConfidenceMotions, IOS_EVIDENCE, toMotionChanges } from './motion-changes.js';
import { segmentSections } from './segment-sections.js';

const { IN_VEHICLE, BICYCLING, ON_FOOT, WALKING, RUNNING, STILL } = MotionType;
/** Fixes every 30 s from ts 0, moving north at the speed (m/s) each leg gives, legs as [until ts, speed]. */
function track(legs: [number, number][]): LocationPoint[] {
  const out: LocationPoint[] = [];
  let metres = 0;
  const end = legs[legs.length - 1]![0];
  for (let ts = 0; ts <= end; ts += 30) {
    if (ts > 0) metres += 30 * legs.find(([until]) => ts <= until)![1];
    out.push(fixAt(ts, metres, { id: `p${ts}`, timeZone: 'America/Los_Angeles' }));
  }
  return out;
}
/** Fixes at the given times moving north at `speed` (m/s), starting `from` metres north of the origin. */
function fixesAt(times: readonly number[], speed: number, from = 0): LocationPoint[] {
  return times.map((ts) =>
    fixAt(ts, from + speed * (ts - times[0]!), { id: `f${ts}`, timeZone: 'America/Los_Angeles' }),
  );
}
const motion = (ts: number, type: number, confidence = 100): MotionPoint => ({ ts, type, confidence });
const every = (from: number, to: number, step: number, type: number) =>
  Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => motion(from + i * step, type));
const modes = (cuts: { mode: number }[]) => cuts.map((c) => c.mode);

describe('motion changes (segment_into_motion_changes)', () => {
  it('keeps confident activities that name a way of travelling, RUNNING as WALKING', () => {
    const kept = highConfidenceMotions(
      [motion(0, WALKING, 60), motion(1, WALKING, 61), motion(2, STILL), motion(3, RUNNING)],
      ANDROID_EVIDENCE,
    );
    expect(kept.map((m) => [m.ts, m.type])).toEqual([
      [1, WALKING],
      [3, WALKING],
    ]);
  });

  it('starts a vehicle or a bike at the reading before it was recognised, any slower mode at its own reading', () => {
    const changes = toMotionChanges([
      motion(0, WALKING),
      motion(10, WALKING),
      motion(20, IN_VEHICLE),
      motion(30, IN_VEHICLE),
      motion(40, WALKING),
      motion(50, BICYCLING),
      motion(60, BICYCLING),
    ]);
    expect(changes.map((c) => [c.start.type, c.start.ts, c.end.ts, c.start.idx, c.end.idx])).toEqual([
      [WALKING, 0, 10, 0, 1],
      [IN_VEHICLE, 10, 40, 1, 4],
      [WALKING, 40, 40, 4, 4],
      [BICYCLING, 40, 60, 4, 6],
    ]);
    // One boundary object ends a change and starts the next.
    expect(changes[0]!.end).toBe(changes[1]!.start);
  });

  it('ends the trip at its last reading: a mode first seen there starts at that reading, not the one before', () => {
    const changes = toMotionChanges([motion(0, BICYCLING), motion(250, BICYCLING), motion(340, IN_VEHICLE)]);
    expect(changes.map((c) => [c.start.type, c.start.ts, c.end.ts])).toEqual([
      [BICYCLING, 0, 340],
      [IN_VEHICLE, 340, 340],
    ]);
  });
});

describe('segmentSections (SmoothedHighConfidenceMotion with flip-flop merging)', () => {
  it('cuts aug-27’s drive and walk where e-mission’s own TestSectionSegmentation does', () => {
    // testSegmentationPointsSmoothedHighConfidenceMotion: the entries written 1440695152.989-1440699266.669, two
    // sections, the drive ending at 1440698066.704 and the walk from 1440698306.892 to 1440699234.834. (Its first
    // section starts at the first fix inside the first motion change, 1440695873.453; the wrapper that makes trips
    // of sections, which this is, starts the first section at the trip's first fix.)
    const entries = loadRealDay('shankari_2015-aug-27').filter(
      (e) => e.metadata.write_ts >= 1440695152.989 && e.metadata.write_ts <= 1440699266.669,
    );
    const { locations, motions, transitions } = toObservations(entries);
    const cuts = segmentSections(locations, motions, ANDROID_EVIDENCE, 1000, transitions);
    expect(cuts.map((c) => [locations[c.startIndex]!.ts, locations[c.endIndex]!.ts, c.mode])).toEqual([
      [locations[0]!.ts, 1440698066.704, IN_VEHICLE],
      [1440698306.892, 1440699234.834, ON_FOOT],
    ]);
  });

  it('cuts a walk and a drive at the fixes inside each, the first and last reaching the trip ends', () => {
    const points = track([
      [300, 1.2],
      [1500, 12],
    ]);
    const motions = [...every(30, 300, 30, WALKING), ...every(330, 1470, 30, IN_VEHICLE)];
    const cuts = segmentSections(points, motions, ANDROID_EVIDENCE, 5000, []);
    expect(cuts).toEqual([
      { startIndex: 0, endIndex: 10, mode: WALKING },
      { startIndex: 10, endIndex: 50, mode: IN_VEHICLE },
    ]);
  });

  it('reads a lone vehicle reading once the phone stopped, at the trip’s end, as a flip-flop the ride absorbs', () => {
    // aug-27 08:34-08:41, e-mission-docs#565: bike readings through the ride, one IN_VEHICLE once standing.
    const points = track([
      [270, 3],
      [420, 0],
    ]);
    const motions = [motion(30, BICYCLING), motion(270, BICYCLING), motion(360, IN_VEHICLE)];
    expect(segmentSections(points, motions, ANDROID_EVIDENCE, 800, [])).toEqual([
      { startIndex: 0, endIndex: 14, mode: BICYCLING },
    ]);
  });

  it('merges a last walk with a single fix into the drive before it', () => {
    const points = track([[1500, 12]]);
    const motions = [...every(30, 1440, 30, IN_VEHICLE), motion(1455, ON_FOOT), motion(1470, ON_FOOT)];
    expect(modes(segmentSections(points, motions, ANDROID_EVIDENCE, 5000, []))).toEqual([IN_VEHICLE]);
  });

  it('merges a one-reading bike between two walks, the walks then joined', () => {
    const points = track([[900, 1.2]]);
    const motions = [...every(30, 420, 30, WALKING), motion(435, BICYCLING), ...every(450, 870, 30, WALKING)];
    expect(segmentSections(points, motions, ANDROID_EVIDENCE, 1000, [])).toEqual([
      { startIndex: 0, endIndex: 30, mode: WALKING },
    ]);
  });

  it('keeps a one-reading walk between two vehicle rides: a transit transfer', () => {
    const points = track([
      [900, 12],
      [960, 1],
      [1800, 12],
    ]);
    const motions = [...every(30, 900, 30, IN_VEHICLE), motion(930, WALKING), ...every(960, 1770, 30, IN_VEHICLE)];
    expect(modes(segmentSections(points, motions, ANDROID_EVIDENCE, 20000, []))).toEqual([
      IN_VEHICLE,
      WALKING,
      IN_VEHICLE,
    ]);
  });

  it('reads a one-reading bike followed at once by a short vehicle change as one fast bike ride', () => {
    const points = track([
      [600, 1.2],
      [900, 7],
    ]);
    const motions = [
      ...every(30, 600, 30, WALKING),
      motion(630, BICYCLING),
      motion(660, IN_VEHICLE),
      motion(690, IN_VEHICLE),
    ];
    expect(modes(segmentSections(points, motions, ANDROID_EVIDENCE, 3000, []))).toEqual([WALKING, BICYCLING]);
  });

  it('makes a long streak of flip-flops one BICYCLING section', () => {
    const points = track([
      [600, 1.2],
      [1200, 5],
      [1800, 1.2],
    ]);
    const wobble = [660, 690, 720, 750, 780, 810].map((ts, i) => motion(ts, i % 2 === 0 ? IN_VEHICLE : ON_FOOT));
    const motions = [...every(30, 600, 30, WALKING), ...wobble, ...every(840, 1770, 30, WALKING)];
    expect(modes(segmentSections(points, motions, ANDROID_EVIDENCE, 5000, []))).toEqual([WALKING, BICYCLING, WALKING]);
  });

  it('lets a streak join a neighbour without fixes, whose speed counts as 0 (a ride underground)', () => {
    // A drive with no GPS, a two-reading bike over three slow fixes, then a walk at 1.2 m/s: the slow streak is
    // closer to the drive's 0 than to the walk, so it ends the drive, which keeps the streak's fixes.
    const motions = [
      ...every(0, 600, 100, IN_VEHICLE),
      motion(700, BICYCLING),
      motion(710, BICYCLING),
      ...every(720, 1400, 40, WALKING),
    ];
    const points = [
      ...fixesAt([705, 710, 715], 0.2),
      ...fixesAt(
        Array.from({ length: 23 }, (_, i) => 730 + i * 30),
        1.2,
        1,
      ),
    ];
    expect(modes(segmentSections(points, motions, ANDROID_EVIDENCE, 5000, []))).toEqual([IN_VEHICLE, WALKING]);
  });

  it('gives the first change a reading of its own: a walk and a drive read at the same instant start a 310 s drive', () => {
    const motions = [
      motion(100, WALKING),
      motion(100, IN_VEHICLE),
      motion(400, IN_VEHICLE),
      motion(410, WALKING),
      motion(1000, WALKING),
      motion(2000, WALKING),
    ];
    expect(modes(segmentSections(track([[2000, 1]]), motions, ANDROID_EVIDENCE, 5000, []))).toEqual([
      IN_VEHICLE,
      WALKING,
    ]);
  });

  it('gives a trip without usable motion one UNKNOWN section if it went anywhere, else none', () => {
    const points = track([[600, 1]]);
    expect(segmentSections(points, [motion(30, STILL)], ANDROID_EVIDENCE, 500, [])).toEqual([
      { startIndex: 0, endIndex: 20, mode: MotionType.UNKNOWN },
    ]);
    expect(segmentSections(points, [], ANDROID_EVIDENCE, 50, [])).toEqual([]);
  });

  it('on iOS asks the state machine whether fixes without motion were a trip (get_section_if_applicable)', () => {
    const points = track([[600, 1]]);
    const whole = [{ startIndex: 0, endIndex: 20, mode: MotionType.UNKNOWN }];
    const transition = (ts: number, t: number) => ({ ts, state: 0, transition: t });
    // No transition at all around the fixes: the phone was not tracking a trip, however far they drift.
    expect(segmentSections(points, [], IOS_EVIDENCE, 5000, [])).toEqual([]);
    // Some transition: far enough from the start place is a trip; close to it, only if it ended a visit.
    expect(segmentSections(points, [], IOS_EVIDENCE, 51, [transition(10, Transition.EXITED_GEOFENCE)])).toEqual(whole);
    expect(segmentSections(points, [], IOS_EVIDENCE, 50, [transition(10, Transition.EXITED_GEOFENCE)])).toEqual([]);
    expect(segmentSections(points, [], IOS_EVIDENCE, 10, [transition(650, Transition.VISIT_ENDED)])).toEqual(whole);
  });

  it('on iOS stretches the modes to the trip ends and skips a mode with fewer than two fixes', () => {
    const points = track([[600, 4]]);
    const motions = [motion(200, BICYCLING), motion(400, BICYCLING)];
    expect(segmentSections(points, motions, IOS_EVIDENCE, 2000, [])).toEqual([
      { startIndex: 0, endIndex: 20, mode: BICYCLING },
    ]);
    expect(segmentSections(points, motions, ANDROID_EVIDENCE, 2000, [])).toEqual([
      { startIndex: 0, endIndex: 20, mode: BICYCLING },
    ]);
  });
});
