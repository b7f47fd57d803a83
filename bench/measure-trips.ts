/**
 * Itinera's trips against e-mission's on the shared real days and the 2023 labelled days: per day, how many of
 * e-mission's trips are found (±60 s, ±100 m), how many of those have its sections and sensed modes, and how close
 * starts, ends and distances are (exact to the second and metre, as e-mission's own TestPipelineRealData demands).
 * A development tool (`npx tsx bench/measure-trips.ts`): the figures the README's "Sections" reports come from it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { modeName } from '../services/trip-builder/domain/diary/trip-geojson.js';
import { type TimeseriesLike, toObservations } from '../services/trip-builder/domain/observations.js';
import { buildTrips, type BuiltTrip } from '../services/trip-builder/domain/timeline/build-trips.js';
import { matches, type ReferenceTrip } from '../test/helpers/evaluate-trips.js';
import { loadGroundTruth, loadRealDay, REAL_DAYS } from '../test/helpers/real-days.js';
import { sharedDataDir } from '../test/helpers/shared-data.js';

/** The parts of e-mission's confirmed trips (composite trips of 2023) this reads. */
interface CompositeTrip {
  metadata: { origin_key: string };
  data: {
    start_ts: number;
    end_ts: number;
    start_loc: { coordinates: [number, number] };
    end_loc: { coordinates: [number, number] };
    distance: number;
    start_fmt_time: string;
    sections: { data: { sensed_mode: number } }[];
  };
}

interface Reference extends ReferenceTrip {
  distance: number;
  label: string;
}

function realDay(day: string): { entries: TimeseriesLike[]; expected: Reference[] } {
  const expected = loadGroundTruth(day).map((t) => ({
    startTs: t.properties['start_ts'],
    endTs: t.properties['end_ts'],
    startLoc: t.properties['start_loc'].coordinates,
    endLoc: t.properties['end_loc'].coordinates,
    distance: t.properties['distance'],
    label: t.properties['start_fmt_time'],
    modes: t.features
      .filter((f) => f.type === 'FeatureCollection')
      .map((f) => String(f.features[0].properties.sensed_mode).split('.')[1]!),
  }));
  return { entries: loadRealDay(day), expected };
}

function labelledDays(): { name: string; entries: TimeseriesLike[]; expected: Reference[] }[] {
  const dir = join(sharedDataDir(), 'emission-labels');
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
    expected: load<CompositeTrip>(`${expected as string}.expected_composite_trips.json`)
      .filter((c) => c.metadata.origin_key === 'analysis/confirmed_trip')
      .map((c) => ({
        startTs: c.data.start_ts,
        endTs: c.data.end_ts,
        startLoc: c.data.start_loc.coordinates,
        endLoc: c.data.end_loc.coordinates,
        distance: c.data.distance,
        label: c.data.start_fmt_time,
        modes: c.data.sections.map((s) => modeName(s.data.sensed_mode)),
      })),
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
