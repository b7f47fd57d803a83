/**
 * Itinera's trips against e-mission's on the shared real days and the 2023 labelled days: per day, how many of
 * e-mission's trips are found (±60 s, ±100 m), how many of those have its sections and sensed modes, and how close
 * starts, ends and distances are (exact to the second and metre, as e-mission's own TestPipelineRealData demands).
 * A development tool (`npx tsx bench/measure-trips.ts`): the figures the README's "Sections" reports come from it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sensedModeName as modeName } from '../shared/events/emission-enums.js';
import { type TimeseriesLike, toObservations } from '../services/trip-builder/domain/observations.js';
import { buildTrips, type BuiltTrip } from '../services/trip-builder/domain/timeline/build-trips.js';
import {
  type EmissionComposite,
  type EmissionTrip,
  fromComposite,
  fromGroundTruth,
  matches,
} from '../test/helpers/evaluate-trips.js';
import { loadGroundTruth, loadRealDay, REAL_DAYS } from '../test/helpers/real-days.js';
import { emissionFixturesDir } from '../test/helpers/fixtures.js';

function realDay(day: string): { entries: TimeseriesLike[]; expected: EmissionTrip[] } {
  return { entries: loadRealDay(day), expected: loadGroundTruth(day).map(fromGroundTruth) };
}

function labelledDays(): { name: string; entries: TimeseriesLike[]; expected: EmissionTrip[] }[] {
  const dir = join(emissionFixturesDir(), 'emission-labels');
  const load = <T>(name: string): T[] => JSON.parse(readFileSync(join(dir, name), 'utf8')) as T[];
  return [
    ['jack_untracked_time_2023-03-12', ['jack_untracked_time_2023-03-12.json'], 'jack_untracked_time_2023-03-12'],
    [
      'shankari_2023-04-13+14',
      ['shankari_2023-04-13.json', 'shankari_2023-04-14.json'],
      'shankari_2023-04-13.retained-last-place.alt',
    ],
  ].map(([name, raw, expected]) => ({
    name: name as string,
    entries: (raw as string[]).flatMap((f) => load<TimeseriesLike>(f)),
    expected: load<EmissionComposite>(`${expected as string}.expected_composite_trips.json`)
      .filter((c) => c.metadata.origin_key === 'analysis/confirmed_trip')
      .map(fromComposite),
  }));
}

const days = [...REAL_DAYS.map((d) => ({ name: d, ...realDay(d) })), ...labelledDays()];
const total = { expected: 0, found: 0, sections: 0, exactStart: 0, exactEnd: 0, exactDistance: 0, extra: 0 };
for (const day of days) {
  const built: BuiltTrip[] = buildTrips(toObservations(day.entries), undefined).trips.filter((t) => !t.untracked);
  console.log(`# ${day.name}: ${day.expected.length} expected, ${built.length} built`);
  for (const r of day.expected) {
    total.expected++;
    const mine = built.find((t) => matches(t, r));
    if (!mine) {
      const near = built.reduce<BuiltTrip | undefined>(
        (best, t) => (!best || Math.abs(t.startTs - r.startTs) < Math.abs(best.startTs - r.startTs) ? t : best),
        undefined,
      );
      console.log(
        `  MISS ${r.label} [${r.modes}]` +
          (near
            ? ` nearest: start ${(near.startTs - r.startTs).toFixed(1)} s, end ${(near.endTs - r.endTs).toFixed(1)} s`
            : ''),
      );
      continue;
    }
    total.found++;
    const modes = mine.sections.map((s) => modeName(s.mode));
    const same = modes.length === r.modes.length && modes.every((m, i) => m === r.modes[i]);
    if (same) total.sections++;
    const ds = mine.startTs - r.startTs;
    const de = mine.endTs - r.endTs;
    const dd = mine.distance - r.distance;
    if (Math.abs(ds) < 1) total.exactStart++;
    if (Math.abs(de) < 1) total.exactEnd++;
    if (Math.abs(dd) < 1) total.exactDistance++;
    if (!same || Math.abs(ds) >= 1 || Math.abs(de) >= 1 || Math.abs(dd) >= 1)
      console.log(
        `  ${same ? 'ok  ' : 'SECT'} ${r.label} start ${ds.toFixed(1)} s end ${de.toFixed(1)} s distance ${dd.toFixed(1)} m` +
          (same ? '' : ` [${modes}] vs [${r.modes}]`),
      );
  }
  total.extra += built.filter((t) => !day.expected.some((r) => matches(t, r))).length;
}
console.log(
  `total: ${total.found}/${total.expected} trips found, ${total.sections} with e-mission's sections; ` +
    `start within 1 s ${total.exactStart}, end ${total.exactEnd}, distance within 1 m ${total.exactDistance}; ` +
    `${total.extra} trips e-mission does not have`,
);
