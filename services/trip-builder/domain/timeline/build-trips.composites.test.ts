import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromComposite, matches } from '../../../../test/helpers/evaluate-trips.js';
import { emissionFixturesDir } from '../../../../test/helpers/fixtures.js';
import { sensedModeName as modeName } from '../../../../shared/events/emission-enums.js';
import { toObservations } from '../observations.js';
import { buildTrips } from './build-trips.js';

/**
 * The labelled days' expected composite trips were made by e-mission's pipeline of 2023, after its flip-flop
 * detection (most of the five real days' ground truths were made earlier): trips and cleaned sections from the
 * same rules as today's e-mission, a second check of the section port beside the five days.
 */
const dir = join(emissionFixturesDir(), 'emission-labels');
const load = (name: string): any[] => JSON.parse(readFileSync(join(dir, name), 'utf8'));

const DAYS = [
  {
    name: 'jack_untracked_time_2023-03-12',
    raw: ['jack_untracked_time_2023-03-12.json'],
    expected: 'jack_untracked_time_2023-03-12.expected_composite_trips.json',
  },
  {
    name: 'shankari_2023-04-13 and 14',
    raw: ['shankari_2023-04-13.json', 'shankari_2023-04-14.json'],
    expected: 'shankari_2023-04-13.retained-last-place.alt.expected_composite_trips.json',
  },
];

describe("buildTrips against e-mission's 2023 composite trips", () => {
  it.each(DAYS)('$name: every trip found, each with the same cleaned sections and sensed modes', (day) => {
    const built = buildTrips(toObservations(day.raw.flatMap(load)), undefined).trips.filter((t) => !t.untracked);
    const expected = load(day.expected).filter((c) => c.metadata.origin_key === 'analysis/confirmed_trip');
    expect(expected.length).toBeGreaterThan(0);
    for (const c of expected) {
      const reference = fromComposite(c);
      const mine = built.find((t) => matches(t, reference));
      expect(mine, `trip ${c.data.start_fmt_time}`).toBeDefined();
      expect(
        mine!.sections.map((s) => modeName(s.mode)),
        `sections of ${c.data.start_fmt_time}`,
      ).toEqual(reference.modes);
      // Where its sections begin and end, and its length, as e-mission's cleaning left them.
      expect(mine!.distance, `distance of ${c.data.start_fmt_time}`).toBeCloseTo(c.data.distance, 0);
      expect(
        mine!.sections.map((s) => [Math.round(s.startTs), Math.round(s.endTs)]),
        `section bounds of ${c.data.start_fmt_time}`,
      ).toEqual(c.data.sections.map((s: any) => [Math.round(s.data.start_ts), Math.round(s.data.end_ts)]));
    }
  });
});
