import type { LocationPoint } from '../observations.js';
import { STOP_RADIUS_M } from '../sections/segment-sections.js';
import type { CleanedSection, CleanedStop } from './cleaned-trip.js';
import { extendEnd, extendStart, type Step } from './extend-track.js';

/**
 * Closes the gaps between sections that no stop explains (e-mission's `squish_stop`, in clean_and_resample's
 * `_fill_stop`). Sections are cut where the phone's activity changed, and their fixes rarely reach that instant:
 * a phone that sampled nothing for the last minutes of a bus ride leaves the bus section ending far from where the
 * walk begins. A stop wider than the stop radius is such a gap, not a place the user stood: it is given to one of
 * its two sections, and has no length or duration left. The gap goes to the sparser side, whose track is
 * speculation anyway: the section with fewer of the trip's fixes per metre. That section reaches across the gap
 * with one more point, its distance growing by the gap's, as in e-mission's output (its 2020 ground truth: the bus
 * section of aug-27's 10:02 trip ends at the walk's first fix, one point and 2,904 m longer). Two of e-mission's
 * slips are not copied: its duration shrinks by the gap instead of growing, and the speed of the added step is
 * negative; here the duration is the section's end minus its start, and the speed the gap over its time.
 * `points` are the trip's fixes.
 */
export function squishStops(
  sections: readonly CleanedSection[],
  stops: readonly CleanedStop[],
  points: readonly LocationPoint[],
): void {
  stops.forEach((stop, i) => {
    if (!(stop.distance > STOP_RADIUS_M)) return;
    const before = sections[i]!;
    const after = sections[i + 1]!;
    const gap: Step = { distance: stop.distance, speed: stop.duration > 0 ? stop.distance / stop.duration : 0 };
    if (fixesPerMetre(before, points) > fixesPerMetre(after, points)) {
      // A well-tracked walk, then a sparse bus: the bus starts where the walk ended.
      extendStart(after, stop.enterTs, stop.enterLoc, gap);
      stop.exitTs = stop.enterTs;
      stop.exitLoc = stop.enterLoc;
    } else {
      // A sparse bus, then a well-tracked walk: the bus ends where the walk starts.
      extendEnd(before, stop.exitTs, stop.exitLoc, gap);
      stop.enterTs = stop.exitTs;
      stop.enterLoc = stop.exitLoc;
    }
    stop.duration = 0;
    stop.distance = 0;
  });
}

function fixesPerMetre(section: CleanedSection, points: readonly LocationPoint[]): number {
  const fixes = points.filter((p) => p.ts >= section.startTs && p.ts <= section.endTs).length;
  return fixes / (section.distance + 1);
}
