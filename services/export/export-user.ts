import { Readable } from 'node:stream';
import type { CompositeTrip } from './domain/composite-trip.js';
import {
  frequentPlaceFilter,
  isLocationNear,
  type LatLon,
  mostFrequentPlaces,
  type NearTest,
  type RawEntry,
  tripEnds,
  withoutNearPoints,
} from './domain/deidentify.js';
import { EXPORT_FORMATS, type ExportFormat } from './domain/export-formats.js';
import type { ExportRange } from './domain/export-range.js';
import { geojsonFeatureCollection } from './domain/geojson.js';
import { gpxDocument } from './domain/gpx.js';
import { ndjsonLines } from './domain/ndjson.js';
import { sectionsCsv } from './domain/sections-csv.js';
import { tripsCsv } from './domain/trips-csv.js';
import { daysCsv } from './domain/days-csv.js';
import type { DayQuality } from '../../shared/quality/day-quality.js';
import { shiftIsoDay } from '../../shared/time/calendar.js';
import { keyedUserId } from './keyed-user-id.js';
import type { ExportSources } from './stores.js';

/** How a researcher export hides who and where: pseudonyms, and no points around the user's frequent places. */
export interface Deidentification {
  /** The key of the pseudonyms (`keyedUserId`): the same secret gives the same pseudonym in every export. */
  secret: string;
  /** Points within this many metres of one of the user's two most frequent places are left out. */
  radiusM: number;
  /**
   * The user's frequent places, when already known: an export of many days one at a time (the CLI) finds them
   * once over the whole range, since one day's trips may not show where the user lives. Found from the exported
   * range's trips otherwise.
   */
  places?: readonly LatLon[];
}

export interface ExportRequest {
  format: ExportFormat;
  userId: string;
  range: Pick<ExportRange, 'fromTs' | 'toTs'>;
  deidentify?: Deidentification;
}

export interface UserExport {
  contentType: string;
  fileExtension: string;
  /**
   * The export's bytes, produced as they are read: nothing is read from Cassandra before the first chunk is asked
   * for, and reading stops (the sources are closed) when the stream is destroyed. Fails, rather than ends, when a
   * source fails, so a truncated export never looks complete.
   */
  body: Readable;
}

/** Frequent places a de-identified export cuts around: usually home and work. */
const FREQUENT_PLACES = 2;

/** One user's data of a range in one format, as a stream. */
export function exportUser(sources: ExportSources, request: ExportRequest): UserExport {
  const { format, userId, deidentify } = request;
  const { contentType, fileExtension } = EXPORT_FORMATS[format];
  // Checked now, so that a missing secret fails the call rather than the stream.
  const pseudonym = deidentify ? keyedUserId(deidentify.secret, userId) : userId;
  return { contentType, fileExtension, body: bodyOf(sources, request, pseudonym) };
}

function bodyOf(sources: ExportSources, request: ExportRequest, pseudonym: string): Readable {
  switch (request.format) {
    case 'ndjson':
      return Readable.from(rawLines(sources, request));
    case 'geojson':
      return Readable.from(geojsonFeatureCollection(trips(sources, request)));
    case 'gpx':
      return Readable.from(gpxDocument(trips(sources, request), { creator: 'Itinera' }));
    case 'trips-csv': {
      const scores = new Map<string, number | null>();
      return tripsCsv(afterDayScores(sources, request, scores, trips(sources, request)), {
        userId: pseudonym,
        dayScoreOf: (date) => scores.get(date),
      });
    }
    case 'days-csv':
      return daysCsv(days(sources, request), { userId: pseudonym });
    case 'sections-csv':
      return sectionsCsv(trips(sources, request), { userId: pseudonym });
  }
}

/**
 * The user's most frequent places over the range, from where their trips start and end: a first pass over the
 * trips, holding two points per trip.
 */
export async function frequentPlacesOf(
  sources: ExportSources,
  userId: string,
  range: ExportRequest['range'],
): Promise<LatLon[]> {
  const ends: LatLon[] = [];
  for await (const trip of sources.compositeTrips(userId, range.fromTs, range.toTs)) ends.push(...tripEnds([trip]));
  return mostFrequentPlaces(ends, FREQUENT_PLACES);
}

/** The test for "near a frequent place" of a de-identified export, its places found now unless given. */
async function nearTestOf(
  sources: ExportSources,
  request: ExportRequest,
  deidentify: Deidentification,
): Promise<NearTest> {
  const places = deidentify.places ?? (await frequentPlacesOf(sources, request.userId, request.range));
  return frequentPlaceFilter(places, deidentify.radiusM);
}

/** The UTC dates of the range's bounds, taken as the local dates whose days an export lists. */
const rangeDates = ({ fromTs, toTs }: ExportRequest['range']) =>
  [fromTs, toTs].map((ts) => new Date(ts * 1000).toISOString().slice(0, 10)) as [string, string];

async function* days(sources: ExportSources, request: ExportRequest): AsyncGenerator<DayQuality> {
  yield* await sources.dayQuality(request.userId, ...rangeDates(request.range));
}

/**
 * The trips, once the scores of their local days are in `scores`: read when the first trip is asked for, a day
 * either side of the range since a trip's local date may fall outside its UTC days.
 */
async function* afterDayScores(
  sources: ExportSources,
  request: ExportRequest,
  scores: Map<string, number | null>,
  trips: AsyncIterable<CompositeTrip>,
): AsyncGenerator<CompositeTrip> {
  const [from, to] = rangeDates(request.range);
  for (const day of await sources.dayQuality(request.userId, shiftIsoDay(from, -1), shiftIsoDay(to, 1)))
    scores.set(day.localDate, day.score);
  yield* trips;
}

async function* trips(sources: ExportSources, request: ExportRequest): AsyncGenerator<CompositeTrip> {
  const { userId, range, deidentify } = request;
  const isNear = deidentify ? await nearTestOf(sources, request, deidentify) : undefined;
  for await (const trip of sources.compositeTrips(userId, range.fromTs, range.toTs))
    yield isNear ? withoutNearPoints(trip, isNear) : trip;
}

/**
 * The raw entries as NDJSON lines. De-identified, each entry is parsed to leave out the location fixes near a
 * frequent place and to replace every user id with the pseudonym; otherwise the stored text passes through.
 */
async function* rawLines(sources: ExportSources, request: ExportRequest): AsyncGenerator<string> {
  const { userId, range, deidentify } = request;
  const texts = sources.rawEntries(userId, range.fromTs, range.toTs);
  if (!deidentify) {
    yield* ndjsonLines(texts);
    return;
  }
  const isNear = await nearTestOf(sources, request, deidentify);
  async function* kept(): AsyncGenerator<object> {
    for await (const text of texts) {
      const entry = JSON.parse(text) as RawEntry;
      if (!isLocationNear(entry, isNear)) yield entry;
    }
  }
  yield* ndjsonLines(kept(), { userIdFor: (id) => keyedUserId(deidentify.secret, id) });
}
