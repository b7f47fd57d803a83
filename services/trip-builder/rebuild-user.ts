import type { Logger } from '../../shared/logger/index.js';
import type { RebuildResult } from '../../shared/operations/operator-actions.js';
import type { TimeseriesReader } from '../../shared/timeseries/index.js';
import { tripToCompositeEntry, type TripLabels, untrackedToCompositeEntry } from './domain/diary/composite-trip.js';
import {
  labelMoves,
  readUserInputEntry,
  type TimelineElement,
  timelineOfMoves,
  USER_INPUT_KEYS,
  type UserInputEntry,
} from './domain/labels/index.js';
import { tripLocalDate, tripToGeojson } from './domain/diary/trip-geojson.js';
import { type TransitStops, withPredictedModes } from './domain/modes/index.js';
import { diaryKey, obsoleteKeys, recentDays } from './domain/diary/usercache-documents.js';
import { OBSERVED_KEYS, type TimeseriesLike, toObservations } from './domain/observations.js';
import { type BuiltTrip, buildTrips } from './domain/timeline/build-trips.js';
import { planRebuild } from './domain/timeline/rebuild-window.js';
import { withUntrackedPeriods } from './domain/timeline/untracked-periods.js';
import type { IndexedTrip, RenderedDay, TripStore, UsercacheDocuments } from './stores.js';

export interface RebuildDeps {
  timeseries: TimeseriesReader;
  trips: TripStore;
  documents: UsercacheDocuments;
  /** Sends a server-to-phone document (null: removed) to the diary topic for other consumers. */
  publishDocument(userId: string, key: string, data: unknown[] | null, writeTs: number): Promise<void>;
  /** The public-transport stops the mode inference looks for around a section's ends. */
  transitStops: TransitStops;
  /** The pipeline log (intake_<n>.log.gz), where the spec's `Adding <n> trips for day <date>` goes. */
  pipelineLog: Logger;
  now(): number;
}

/** What rendering a day reads: the stored trips and the timeseries (for the user's inputs). */
export type DayReaders = Pick<RebuildDeps, 'timeseries' | 'trips'>;

/** Far enough in the future for "everything after": data.ts of a phone's entries never exceeds it. */
const END_OF_TIME = 4_102_444_800; // 2100-01-01
/** How many recent trips to look at when listing the days the phone's usercache should hold. */
const RECENT_TRIPS_SCAN = 200;

/**
 * Brings one user's trips, diary and metrics up to date after new observations from `earliestNewTs` on arrived.
 * Every write is an upsert keyed by what it stores and the resume point is saved last, so a crash anywhere in
 * here redelivers the batch into a rebuild from the same point with the same result.
 */
export async function rebuildUser(deps: RebuildDeps, userId: string, earliestNewTs: number): Promise<RebuildResult> {
  const resume = await deps.trips.resumePoint(userId);
  const lateData = resume !== undefined && earliestNewTs < resume.fromTs;
  const window = planRebuild(resume, lateData ? await deps.trips.indexFrom(userId, -Infinity) : [], earliestNewTs);
  const readFrom = Math.max(0, Math.min(window.fromTs, window.place?.enterTs ?? Infinity));
  // The trips the window replaces are read beside its observations: neither depends on the other.
  const [raw, old] = await Promise.all([
    deps.timeseries.find(userId, Object.values(OBSERVED_KEYS), 'data.ts', readFrom, END_OF_TIME),
    deps.trips.indexFrom(userId, window.fromTs),
  ]);
  const entries = raw
    .map((json) => JSON.parse(json) as TimeseriesLike)
    .filter((e) => e.metadata.key !== OBSERVED_KEYS.location || Number(e.data['ts']) >= window.fromTs);
  const built = buildTrips(toObservations(entries), window.place);
  const trips = await withPredictedModes(built.trips, deps.transitStops);

  await deps.trips.replaceTrips(userId, old, trips);

  const days = new Set([...old.map((t) => t.localDate), ...trips.map(tripLocalDate)]);
  const firstNew = trips[0];
  if (firstNew || old[0]) {
    // The trip before the window gains a next trip (or loses one): its end place's stay changes.
    const previous = await deps.trips.tripBefore(userId, firstNew?.rawStartTs ?? old[0]!.rawStartTs);
    if (previous) days.add(previous.localDate);
  }
  const rendered = new Map<string, unknown[]>();
  for (const day of [...days].sort()) {
    const rendering = await renderDay(deps, userId, day);
    const timeline = rendering.timeline;
    rendered.set(day, timeline);
    await deps.trips.saveDiaryDay(userId, day, rendering);
    if (timeline.length > 0) deps.pipelineLog.info(`Adding ${timeline.length} trips for day ${day}`, { user: userId });
  }
  const [latest, first] = await Promise.all([
    deps.trips.latestTrips(userId, RECENT_TRIPS_SCAN),
    deps.trips.firstTrip(userId),
  ]);
  await refreshUsercache(deps, userId, rendered, latest);
  await deps.trips.saveProgress(userId, {
    completeTs: latest[0]?.endTs ?? null,
    rangeStartTs: first?.startTs ?? null,
    rangeEndTs: latest[0]?.endTs ?? null,
  });
  const next =
    built.resume ?? (Number.isFinite(window.fromTs) ? { fromTs: window.fromTs, place: window.place } : undefined);
  if (next) await deps.trips.saveResumePoint(userId, next);
  return { trips: trips.length, days: [...days].sort() };
}

/** How long before a trip a label about it may have been written: phone clocks drift, never by a day. */
const INPUT_CLOCK_SLACK_S = 86_400;

/**
 * The user's labels, surveys and notes that may concern trips from `fromTs` on. An input is written once its trip
 * or place has happened, so reading by write time from the first trip on finds every candidate, and a rebuild of
 * recent days reads only recent inputs.
 */
export async function readUserInputs(deps: DayReaders, userId: string, fromTs: number): Promise<UserInputEntry[]> {
  const raw = await deps.timeseries.find(
    userId,
    USER_INPUT_KEYS,
    'metadata.write_ts',
    fromTs - INPUT_CLOCK_SLACK_S,
    END_OF_TIME,
  );
  return raw.map((json) => readUserInputEntry(JSON.parse(json))).filter((e) => e !== undefined);
}

/** One move of a day (a trip or an untracked period) with its neighbours, which bound its places, and its labels. */
export interface DayMove {
  move: BuiltTrip;
  previous: BuiltTrip | undefined;
  next: BuiltTrip | undefined;
  labels: TripLabels;
}

/** A day's trips and untracked periods with what the user said about them, and what that was matched from. */
export interface LabelledDay {
  moves: DayMove[];
  /** The timeline the inputs were matched against (places and moves around the day) and those inputs. */
  timeline: TimelineElement[];
  inputs: UserInputEntry[];
}

/**
 * Path A for one day: every stored input matched afresh against the day's trips, untracked periods and places, so
 * a re-render after a late label, a rebuild or a reset gives the same result. The trips before and after the day
 * bound its first and last places; the last place stays open, and takes later place notes, until a trip leaves
 * it. An untracked period belongs to the day of the trip it leads to (the app lists composites by their end).
 */
export async function labelDay(deps: DayReaders, userId: string, day: string): Promise<LabelledDay | undefined> {
  const trips = (await deps.trips.tripsOfDay(userId, day)).sort((a, b) => a.rawStartTs - b.rawStartTs);
  if (trips.length === 0) return undefined;
  const { previous, next } = await deps.trips.neighbours(
    userId,
    trips[0]!.rawStartTs,
    trips[trips.length - 1]!.rawStartTs,
  );
  const chain = [previous, ...trips, next].filter((t): t is BuiltTrip => t !== undefined);
  const moves = withUntrackedPeriods(chain);
  const inputs = await readUserInputs(deps, userId, moves[0]!.startTs);
  const matched = labelMoves(moves, inputs);
  const first = moves.indexOf(trips[0]!);
  // The day starts with the untracked period leading to its first trip, if there is one.
  const from = first > 0 && moves[first - 1]!.untracked ? first - 1 : first;
  const to = moves.indexOf(trips[trips.length - 1]!);
  const dayMoves: DayMove[] = [];
  for (let i = from; i <= to; i++) {
    dayMoves.push({
      move: moves[i]!,
      previous: moves[i - 1],
      next: moves[i + 1],
      labels: { trip: matched.moves[i]!, startPlace: matched.places[i]!, endPlace: matched.places[i + 1]! },
    });
  }
  return { moves: dayMoves, timeline: timelineOfMoves(moves), inputs };
}

/**
 * A day's trips in both shapes the phone apps read, labelled. getTrips' timeline has no untracked periods (e-mission
 * drops them there); the composite trips have them, as `analysis/confirmed_untracked`.
 */
export async function renderDay(deps: DayReaders, userId: string, day: string): Promise<RenderedDay> {
  const labelled = await labelDay(deps, userId, day);
  if (!labelled) return { timeline: [], composites: [] };
  return {
    timeline: labelled.moves
      .filter(({ move }) => !move.untracked)
      .map(({ move, previous, next }) => tripToGeojson(userId, move, previous, next)),
    composites: compositesOf(userId, labelled),
  };
}

/** A day's composite trips alone, labelled: all a new label changes (getTrips' timeline carries no labels). */
export async function renderCompositeDay(
  deps: DayReaders,
  userId: string,
  day: string,
): Promise<RenderedDay['composites']> {
  const labelled = await labelDay(deps, userId, day);
  return labelled ? compositesOf(userId, labelled) : [];
}

function compositesOf(userId: string, { moves }: LabelledDay): RenderedDay['composites'] {
  return moves.map(({ move, ...around }) =>
    move.untracked ? untrackedToCompositeEntry(userId, move, around) : tripToCompositeEntry(userId, move, around),
  );
}

/**
 * The phone's usercache holds the diary of the recent days (e-mission's server-to-phone documents): days rebuilt
 * now are written, days that fell out of the window and obsolete documents are removed.
 */
async function refreshUsercache(
  deps: RebuildDeps,
  userId: string,
  rendered: Map<string, unknown[]>,
  latest: readonly IndexedTrip[],
): Promise<void> {
  const recent =
    latest.length > 0 ? recentDays([...new Set(latest.map((t) => t.localDate))], latest[0]!.localDate) : [];
  const writeTs = deps.now();
  const existing = await deps.documents.keys(userId);
  for (const day of recent) {
    const timeline = rendered.get(day);
    if (timeline === undefined && existing.includes(diaryKey(day))) continue;
    const data = timeline ?? (await renderDay(deps, userId, day)).timeline;
    await Promise.all([
      deps.documents.put(userId, diaryKey(day), data, writeTs),
      deps.publishDocument(userId, diaryKey(day), data, writeTs),
    ]);
  }
  for (const key of obsoleteKeys(existing, recent.map(diaryKey))) {
    await Promise.all([deps.documents.remove(userId, key), deps.publishDocument(userId, key, null, writeTs)]);
  }
}
