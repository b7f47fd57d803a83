import { describe, expect, it } from 'vitest';
import { sensedModeName as modeName } from '../../../../shared/events/emission-enums.js';
import { tripLocalDate, tripToGeojson } from '../diary/trip-geojson.js';
import { toObservations } from '../observations.js';
import { loadGroundTruth, loadRealDay, REAL_DAYS } from '../../../../test/helpers/real-days.js';
import { buildTrips } from './build-trips.js';
import { type EmissionTrip, fromGroundTruth, matches, scoreDay } from '../../../../test/helpers/evaluate-trips.js';

const groundTruth = (day: string): EmissionTrip[] => loadGroundTruth(day).map(fromGroundTruth);

describe('buildTrips on the real days', () => {
  const scores = REAL_DAYS.map((day) => {
    const built = buildTrips(toObservations(loadRealDay(day)), undefined).trips;
    return {
      day,
      built,
      score: scoreDay(
        built.map((t) => ({ ...t, modeNames: t.sections.map((s) => modeName(s.mode)) })),
        groundTruth(day),
      ),
    };
  });

  /**
   * The claim: every ground-truth trip found on every day, and no trip e-mission does not have. The
   * last one to fall in place was aug-27's 08:32 ride, whose trip ends on a lone IN_VEHICLE reading once the bike
   * is parked (see `toMotionChanges`).
   */
  it.each(REAL_DAYS)('%s: every trip found, none extra', (day) => {
    const { score } = scores.find((s) => s.day === day)!;
    expect(score.matchedExpected).toBe(score.expected);
    expect(score.matchedReturned).toBe(score.returned);
  });

  it('all 30 trips have e-mission’s sections and sensed modes', () => {
    const differing = scores.flatMap(({ day, built }) =>
      groundTruth(day).flatMap((g) => {
        const mine = built.find((b) => matches(b, g))?.sections.map((s) => modeName(s.mode));
        const ours = mine?.join(', ') ?? 'no trip';
        const theirs = g.modes.join(', ');
        return ours === theirs ? [] : [`${day} ${g.label}: ${ours}, e-mission ${theirs}`];
      }),
    );
    expect(scores.reduce((n, s) => n + s.score.expected, 0)).toBe(30);
    expect(differing).toEqual([]);
  });

  /**
   * Beyond finding the trips: where each section begins and ends, and each trip's length, as e-mission's cleaning
   * leaves them (jumps removed by its zigzag rule, stops squished, a trip after a dropped one joined to the diary's
   * place). Every one of them must match, not most: a bound or a length off is a rule ported wrong.
   */
  it('every section starts and ends within 1 s of e-mission’s (84 of 84), every trip is within 1 m of its distance (30 of 30)', () => {
    let bounds = 0;
    let trips = 0;
    const misses: string[] = [];
    for (const { day, built } of scores) {
      for (const t of loadGroundTruth(day)) {
        const p = t.properties;
        const name = `${day} ${p['start_fmt_time']}`;
        const mine = built.find((b) => matches(b, fromGroundTruth(t)));
        const sections = t.features.filter((f) => f.type === 'FeatureCollection').map((f) => f.features[0].properties);
        trips += 1;
        bounds += 2 * sections.length;
        if (!mine || mine.sections.length !== sections.length) {
          misses.push(
            `${name}: ${mine ? `${mine.sections.length} sections` : 'no trip'}, e-mission ${sections.length}`,
          );
          continue;
        }
        if (Math.abs(mine.distance - p['distance']) >= 1)
          misses.push(`${name}: distance ${mine.distance} m, e-mission ${p['distance']} m`);
        mine.sections.forEach((s, i) => {
          const theirs = sections[i];
          if (Math.abs(s.startTs - theirs.start_ts) >= 1)
            misses.push(`${name}: section ${i} starts ${s.startTs}, e-mission ${theirs.start_ts}`);
          if (Math.abs(s.endTs - theirs.end_ts) >= 1)
            misses.push(`${name}: section ${i} ends ${s.endTs}, e-mission ${theirs.end_ts}`);
        });
      }
    }
    expect({ trips, bounds }).toEqual({ trips: 30, bounds: 84 });
    expect(misses).toEqual([]);
  });

  it('renders trips in the diary shape: places, stops, one FeatureCollection per section with equal-length arrays', () => {
    const { built } = scores.find((s) => s.day === 'shankari_2015-aug-27')!;
    const json = tripToGeojson('u1', built[6]!, built[5], built[7]);
    expect(json.properties).toMatchObject({ feature_type: 'trip', source: 'DwellSegmentationTimeFilter' });
    expect(json.features.map((f) => ('properties' in f ? f.properties.feature_type : 'section'))).toEqual([
      'start_place',
      'end_place',
      'stop',
      'stop',
      'stop',
      'section',
      'section',
      'section',
      'section',
    ]);
    for (const fc of json.features.filter((f) => f.type === 'FeatureCollection')) {
      const section = (fc as { features: { geometry: { coordinates: unknown[] }; properties: Record<string, any> }[] })
        .features[0]!;
      const p = section.properties;
      expect(p['times'].length).toBe(section.geometry.coordinates.length);
      expect(p['speeds'].length).toBe(p['times'].length);
      expect(p['distances'].length).toBe(p['times'].length);
      expect(p['times'][0]).toBe(p['start_ts']);
      expect(p['times'].at(-1)).toBe(p['end_ts']);
      expect(p['sensed_mode']).toMatch(/^MotionTypes\./);
    }
    expect(tripLocalDate(built[0]!)).toBe('2015-08-27');
  });
});
