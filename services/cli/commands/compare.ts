import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { composeTripBuilderStores } from '../../trip-builder/compose.js';
import {
  compareTrips,
  emissionTripsFromEntries,
  emissionTripsFromGroundTruth,
  type TripSpan,
} from '../../import/domain/compare-trips.js';
import { groundTruthBeside } from '../../import/dump/ground-truth-day.js';
import { listDumpFiles } from '../../import/dump/list-dump-files.js';
import { readEmissionFile } from '../../import/dump/read-emission-dump.js';
import type { Session } from '../session.js';
import { createUsersTable } from '../../../shared/tables/index.js';
import { opcodeProgram } from '../../../shared/programs/domain/opcode.js';

const DERIVED_TRIP_KEYS = new Set(['analysis/confirmed_trip', 'analysis/cleaned_trip', 'analysis/composite_trip']);
const DAY_S = 86_400;

/**
 * `itinera compare <path>`: per user and day of an e-mission dump (and per program, when the users' tokens name
 * programs), e-mission's trips beside the trips Itinera built
 * from the imported entries (`itinera import <path>` first), matched when start and end are both within 60 s.
 * Itinera's trips are counted over the days the dump covers. e-mission's trips are either:
 *
 * - its own `analysis/*` trips in the dump (a real deployment's export): compared per user, users as they are;
 * - else the ground truth beside a day file (`<name>.ground_truth.json`, as e-mission's tests keep them). e-mission
 *   made each such ground truth by loading that one file under a fresh uuid (`setupRealExample` in
 *   emission/tests/common.py), so each day starts a new chain of places; its multi-day test has a combined ground
 *   truth of its own. Such a file is therefore imported and compared as its own user, `groundTruthUser(uuid, file)`
 *   (the reader maps it, for import and compare alike): the day files sharing one phone's uuid would otherwise be
 *   one history, where a later day's first trip starts from the place entered days before, as e-mission's own
 *   pipeline would make it too, and not as its ground truth for that file says.
 */
export async function compare(s: Session, path: string): Promise<number> {
  const emission = new Map<string, TripSpan[]>();
  const derived = new Map<string, Array<{ metadata: Record<string, unknown>; data: Record<string, unknown> }>>();
  const perFile: string[] = [];
  for (const { path: file, bytes } of await listDumpFiles(path)) {
    const users = new Set<string>();
    for await (const e of readEmissionFile(file, {}, bytes)) {
      users.add(e.userUuid);
      if (!DERIVED_TRIP_KEYS.has(String(e.metadata['key']))) continue;
      const list = derived.get(e.userUuid) ?? [];
      list.push(e);
      derived.set(e.userUuid, list);
    }
    const truthFile = await groundTruthBeside(file);
    const truth =
      truthFile && users.size === 1
        ? emissionTripsFromGroundTruth(JSON.parse(await readFile(truthFile, 'utf8')))
        : undefined;
    if (truthFile) perFile.push(`${basename(file)} as user ${[...users].join(', ')}`);
    for (const user of users) emission.set(user, (emission.get(user) ?? []).concat(truth ?? []));
  }
  for (const [user, entries] of derived) emission.set(user, emissionTripsFromEntries(entries));

  if (perFile.length > 0)
    process.stdout.write(
      `# ${perFile.length} day file(s) with e-mission's ground truth beside them, each imported and compared as its own\n` +
        `# user, as e-mission's tests load each file under a fresh uuid to make its ground truth (setupRealExample):\n` +
        perFile.map((line) => `#   ${line}\n`).join(''),
    );
  const trips = composeTripBuilderStores(s.cql).trips;
  const users = createUsersTable(s.cql, { cacheEntries: 1 });
  /** Totals per program the users' tokens name (an import with --program puts them all in one). */
  const byProgram = new Map<string, { matched: number; expected: number; built: number }>();
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
    const token = (await users.findByUuid(user))?.userEmail;
    const program = (token === undefined ? undefined : opcodeProgram(token)) ?? '(no program)';
    const sums = byProgram.get(program) ?? { matched: 0, expected: 0, built: 0 };
    sums.matched += result.total.matched;
    sums.expected += result.total.emissionTrips;
    sums.built += result.total.itineraTrips;
    byProgram.set(program, sums);
  }
  if ([...byProgram.keys()].some((p) => p !== '(no program)'))
    for (const [program, t] of [...byProgram].sort(([a], [b]) => a.localeCompare(b)))
      process.stdout.write(
        `program ${program}: ${t.matched} of ${t.expected} e-mission trips matched (${t.expected === 0 ? 100 : Math.round((t.matched / t.expected) * 100)}%); Itinera built ${t.built}\n`,
      );
  const share = expected === 0 ? 100 : Math.round((matched / expected) * 100);
  process.stdout.write(
    `total: ${matched} of ${expected} e-mission trips matched (${share}%); Itinera built ${built} trips on those days\n`,
  );
  return 0;
}
