import { readFile } from 'node:fs/promises';
import { composeTripBuilderStores } from '../../trip-builder/compose.js';
import {
  compareTrips,
  emissionTripsFromEntries,
  emissionTripsFromGroundTruth,
  type TripSpan,
} from '../../import/domain/compare-trips.js';
import { listDumpFiles } from '../../import/dump/list-dump-files.js';
import { readEmissionFile } from '../../import/dump/read-emission-dump.js';
import type { Session } from '../session.js';

const DERIVED_TRIP_KEYS = new Set(['analysis/confirmed_trip', 'analysis/cleaned_trip', 'analysis/composite_trip']);
const DAY_S = 86_400;

/** The ground truth e-mission's tests keep beside a day's dump (`<name>.ground_truth.json`), if there is one. */
async function groundTruthBeside(file: string): Promise<TripSpan[] | undefined> {
  const truth = file.replace(/\.json(\.gz)?$|\.ndjson(\.gz)?$|\.jsonl(\.gz)?$/, '.ground_truth.json');
  if (truth === file) return undefined;
  try {
    return emissionTripsFromGroundTruth(JSON.parse(await readFile(truth, 'utf8')));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * `itinera compare <path>`: per user and day of an e-mission dump, e-mission's trips (its `analysis/*` trips in the
 * dump, else the ground truth beside a file) beside the trips Itinera built from the imported entries, matched when
 * start and end are both within 60 s. Itinera's trips are counted over the days the dump covers.
 */
export async function compare(s: Session, path: string): Promise<number> {
  const emission = new Map<string, TripSpan[]>();
  const derived = new Map<string, Array<{ metadata: Record<string, unknown>; data: Record<string, unknown> }>>();
  for (const { path: file, bytes } of await listDumpFiles(path)) {
    const users = new Set<string>();
    for await (const e of readEmissionFile(file, {}, bytes)) {
      users.add(e.userUuid);
      if (!DERIVED_TRIP_KEYS.has(String(e.metadata['key']))) continue;
      const list = derived.get(e.userUuid) ?? [];
      list.push(e);
      derived.set(e.userUuid, list);
    }
    const truth = users.size === 1 ? await groundTruthBeside(file) : undefined;
    for (const user of users) emission.set(user, (emission.get(user) ?? []).concat(truth ?? []));
  }
  for (const [user, entries] of derived) emission.set(user, emissionTripsFromEntries(entries));

  const trips = composeTripBuilderStores(s.cql).trips;
  let [matched, expected, built] = [0, 0, 0];
  process.stdout.write('user\tdate\te-mission\titinera\tmatched\tshare\n');
  for (const [user, theirs] of [...emission].sort(([a], [b]) => a.localeCompare(b))) {
    if (theirs.length === 0) continue;
    const from = Math.min(...theirs.map((t) => t.startTs)) - DAY_S;
    const to = Math.max(...theirs.map((t) => t.endTs)) + DAY_S;
    const ours = (await trips.indexFrom(user, from))
      .filter((t) => t.startTs <= to)
      .map((t) => ({ startTs: t.startTs, endTs: t.endTs, timeZone: theirs[0]?.timeZone }));
    const result = compareTrips(theirs, ours);
    for (const d of result.days)
      process.stdout.write(
        `${user}\t${d.localDate}\t${d.emissionTrips}\t${d.itineraTrips}\t${d.matched}\t${Math.round(d.share * 100)}%\n`,
      );
    matched += result.total.matched;
    expected += result.total.emissionTrips;
    built += result.total.itineraTrips;
  }
  const share = expected === 0 ? 100 : Math.round((matched / expected) * 100);
  process.stdout.write(
    `total: ${matched} of ${expected} e-mission trips matched (${share}%); Itinera built ${built} trips on those days\n`,
  );
  return 0;
}
