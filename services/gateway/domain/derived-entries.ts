import { derivedObjectId } from '../../../shared/ids/entry-identity.js';
/**
 * The analysis keys `find_entries` serves from the trip builder's composite trips rather than the raw timeseries,
 * and how each is drawn out of a composite entry: the trip itself, or the full entries nested in it.
 */
const EXTRACTORS: ReadonlyMap<string, (composite: Entry) => Entry[]> = new Map([
  ['analysis/composite_trip', (c: Entry) => [c]],
  // The v3.x label screen reads confirmed trips: the same trip under its origin key.
  ['analysis/confirmed_trip', (c: Entry) => [{ ...c, metadata: { ...c.metadata, key: 'analysis/confirmed_trip' } }]],
  ['analysis/inferred_section', (c: Entry) => sectionsOf(c).filter(isInferred)],
  ['analysis/cleaned_section', cleanedSections],
  ['inference/prediction', (c: Entry) => sectionsOf(c).filter(isInferred).map(predictionOf)],
  ['analysis/recreated_location', (c: Entry) => (c.data['locations'] as Entry[] | undefined) ?? []],
  [
    'analysis/confirmed_place',
    (c: Entry) =>
      [c.data['start_confirmed_place'], c.data['end_confirmed_place']].filter((p): p is Entry => p !== undefined),
  ],
]);

export interface Entry {
  _id: { $oid: string };
  metadata: Record<string, unknown>;
  data: Record<string, unknown>;
}

/** e-mission's AlgorithmTypes.SIMPLE_RULE_ENGINE: the rule engine that predicted the modes. */
const SIMPLE_RULE_ENGINE = 2;

const sectionsOf = (c: Entry) => (c.data['sections'] as Entry[] | undefined) ?? [];
/** Composites rendered before modes were inferred hold cleaned sections; later ones, inferred sections. */
const isInferred = (section: Entry) => section.metadata['key'] === 'analysis/inferred_section';

/**
 * The cleaned sections of a composite. An inferred section is its cleaned section with the predicted mode: the
 * sensed mode (MotionTypes) comes back from the section's recreated locations, which keep it.
 */
function cleanedSections(c: Entry): Entry[] {
  const sensed = new Map<string, unknown>();
  for (const location of (c.data['locations'] as Entry[] | undefined) ?? []) {
    const section = (location.data['section'] as { $oid?: string } | undefined)?.$oid;
    if (section !== undefined && !sensed.has(section)) sensed.set(section, location.data['mode']);
  }
  return sectionsOf(c).map((section) => {
    if (!isInferred(section)) return section;
    const { cleaned_section: cleaned, sensed_mode_str: _predictedName, ...data } = section.data;
    const id = (cleaned as { $oid?: string } | undefined)?.$oid ?? section._id.$oid;
    const mode = sensed.get(id);
    return {
      ...section,
      _id: { $oid: id },
      metadata: { ...section.metadata, key: 'analysis/cleaned_section' },
      data: { ...data, sensed_mode: typeof mode === 'number' ? mode : MOTION_UNKNOWN },
    };
  });
}
/** MotionTypes.UNKNOWN, for a section that kept no location. */
const MOTION_UNKNOWN = 4;

/** e-mission's `inference/prediction` for an inferred section: its one predicted mode with probability 1. */
function predictionOf(section: Entry): Entry {
  const cleaned = (section.data['cleaned_section'] as { $oid?: string } | undefined) ?? section._id;
  return {
    // Derived from the section's id: the same prediction has the same id on every read.
    _id: { $oid: derivedObjectId('prediction', section._id.$oid) },
    metadata: { ...section.metadata, key: 'inference/prediction' },
    data: {
      trip_id: section.data['trip_id'],
      section_id: cleaned,
      algorithm_id: SIMPLE_RULE_ENGINE,
      predicted_mode_map: { [String(section.data['sensed_mode_str'])]: 1 },
      start_ts: section.data['start_ts'],
      end_ts: section.data['end_ts'],
    },
  };
}

/** A Map lookup, not `in`: key_list strings such as "constructor" or "__proto__" are ordinary unknown keys. */
export function isDerivedKey(key: string): boolean {
  return EXTRACTORS.has(key);
}

/** The value of `metadata.write_ts`, `data.end_ts` and the like; undefined when the entry has no such field. */
function timeOf(entry: Entry, keyTime: string): number | undefined {
  const [root, field] = keyTime.split('.', 2);
  const holder = root === 'metadata' ? entry.metadata : root === 'data' ? entry.data : undefined;
  // `field` comes from the request (`key_time`): only the entry's own fields count, never Object's.
  const value = holder && field && Object.hasOwn(holder, field) ? holder[field] : undefined;
  return typeof value === 'number' ? value : undefined;
}

interface Timed {
  ts: number;
  entry: Entry;
}

/** Appends to `found` the entries of `keys` in `composites` timed in [start, end] that `seen` does not hold yet. */
function drawEntries(
  composites: readonly Entry[],
  query: { keys: readonly string[]; keyTime: string; start: number; end: number },
  seen: Set<string>,
  found: Timed[],
): void {
  for (const key of query.keys) {
    const extract = EXTRACTORS.get(key);
    if (!extract) continue;
    for (const composite of composites) {
      for (const entry of extract(composite)) {
        const ts = timeOf(entry, query.keyTime);
        const id = `${key}|${entry._id.$oid}`;
        if (ts === undefined || ts < query.start || ts > query.end || seen.has(id)) continue;
        seen.add(id);
        found.push({ ts, entry });
      }
    }
  }
}

/**
 * The entries of `keys` drawn from `composites`, whose `keyTime` field lies in [start, end], each once (places
 * are shared by neighbouring trips), in time order.
 */
export function selectDerivedEntries(
  composites: readonly Entry[],
  keys: readonly string[],
  keyTime: string,
  start: number,
  end: number,
): Entry[] {
  const found: Timed[] = [];
  drawEntries(composites, { keys, keyTime, start, end }, new Set(), found);
  return found.sort((a, b) => a.ts - b.ts).map((f) => f.entry);
}

/**
 * The composite ends to read for entries timed in [start, end]. A nested entry (section, location, place) is
 * timed within a day or so of its composite's end, and a trip lasts at most a day; two days either side keep every
 * composite that can hold one (the trip builder files a trip under its start's local date, up to 14 hours off UTC).
 */
export function compositeEndRange(start: number, end: number): { from: number; to: number } {
  const DAY = 86_400;
  return { from: start - 2 * DAY, to: end + 2 * DAY };
}

/**
 * Whether the query asks for the composite trips themselves by their end: the label screen's poll. Those are read
 * by exactly the asked range and answered with the stored text, nothing parsed.
 */
export function asksStoredComposites(keys: readonly string[], keyTime: string): boolean {
  return keyTime === 'data.end_ts' && keys.every((k) => k === 'analysis/composite_trip');
}

/** A composite entry as stored: its end time, its trip-local date and its JSON text. */
export interface StoredCompositeText {
  endTs: number;
  entryId: string;
  localDate: string;
  json: string;
}

/**
 * The first `limit` stored composites of `rows` (read in end order, or newest first), ascending, as they are: the
 * rows are the answer. Throws `tooLarge()` once the kept texts pass `maxBytes`.
 */
export async function collectStoredComposites(
  rows: AsyncIterable<StoredCompositeText>,
  {
    limit = Infinity,
    maxBytes = Infinity,
    tooLarge = () => new Error(`entries exceed ${maxBytes} bytes`),
  }: CollectOptions,
): Promise<TimedJson[]> {
  const found: TimedJson[] = [];
  // A trip a rebuild moved to another date is filed under both until the old date is rendered again: sent once.
  const seen = new Set<string>();
  let bytes = 0;
  for await (const row of rows) {
    if (found.length >= limit) break;
    if (seen.has(row.entryId)) continue;
    seen.add(row.entryId);
    bytes += Buffer.byteLength(row.json) + 1;
    if (bytes > maxBytes) throw tooLarge();
    found.push({ ts: row.endTs, json: row.json });
  }
  return found.sort((a, b) => a.ts - b.ts);
}

/** Stored composites, in end order, as the trip-local days they belong to (a run of rows of one date each). */
export async function* compositeDaysOf(rows: AsyncIterable<StoredCompositeText>): AsyncGenerator<CompositeDay> {
  let day: { localDate: string; entries: Entry[] } | undefined;
  for await (const row of rows) {
    if (day && day.localDate !== row.localDate) {
      yield day;
      day = undefined;
    }
    day ??= { localDate: row.localDate, entries: [] };
    day.entries.push(JSON.parse(row.json) as Entry);
  }
  if (day) yield day;
}

/** An entry as it goes into the answer: its JSON, and its value of the asked time key (for ordering). */
export interface TimedJson {
  ts: number;
  json: string;
}

/**
 * Raw entries and derived ones, each sorted by the asked time key, in one list ordered by it (raw first on a
 * tie). Raw entries carry the time of the row they were read from, so no stored entry is parsed again.
 */
export function mergeByTime(raw: readonly TimedJson[], derived: readonly TimedJson[]): string[] {
  const out: string[] = [];
  let [i, j] = [0, 0];
  while (i < raw.length || j < derived.length) {
    if (j >= derived.length || (i < raw.length && raw[i]!.ts <= derived[j]!.ts)) out.push(raw[i++]!.json);
    else out.push(derived[j++]!.json);
  }
  return out;
}

/** One trip-local date of composite trips, as the diary stores them. */
export interface CompositeDay {
  localDate: string;
  entries: readonly Entry[];
}

/**
 * A trip is filed under the local date of its start: its entries are timed from 14 hours before that date (the
 * easternmost zones) to two days after it (a trip lasts at most a day). So once `limit` entries are found, two
 * more dates of reading are enough to be sure no unread entry comes earlier (or, newest first, later).
 */
const FILING_SKEW_DAYS = 2;
const dayOfDate = (localDate: string) => Math.floor(Date.parse(`${localDate}T00:00:00Z`) / 86_400_000);

/**
 * The time keys for which that holds: times of the travel itself. Any other key, `metadata.write_ts` above all,
 * is when the trip builder wrote the entry, and a day reprocessed months later has a write_ts far from its date:
 * reading must then go through every date of the range, keeping only the best `limit` entries as it goes.
 */
const TRAVEL_TIME_KEYS: ReadonlySet<string> = new Set([
  'data.ts',
  'data.start_ts',
  'data.end_ts',
  'data.enter_ts',
  'data.exit_ts',
]);

export interface CollectOptions {
  /** Most entries returned: the earliest, or with `newestFirst` the latest. @defaultValue no limit */
  limit?: number;
  /** Dates come newest first (keep the latest). */
  newestFirst?: boolean;
  /**
   * UTF-8 bytes (of the entries' JSON, with a separator each) the entries kept may hold; past it, `tooLarge()` is
   * thrown and nothing more is read. @defaultValue no limit
   */
  maxBytes?: number;
  tooLarge?: () => Error;
}

/**
 * The entries of `keys` timed in [start, end] drawn from composite days read in date order (newest first with
 * `newestFirst`): the earliest `limit` (or the latest), each once, in ascending time order, as JSON, reading no
 * further than needed and holding no more than `limit` entries (twice that between trims) and `maxBytes`.
 */
export async function collectDerivedEntries(
  days: AsyncIterable<CompositeDay>,
  query: { keys: readonly string[]; keyTime: string; start: number; end: number },
  {
    limit = Infinity,
    newestFirst = false,
    maxBytes = Infinity,
    tooLarge = () => new Error(`derived entries exceed ${maxBytes} bytes`),
  }: CollectOptions = {},
): Promise<TimedJson[]> {
  const seen = new Set<string>();
  const found: TimedJson[] = [];
  let bytes = 0;
  const canStopEarly = TRAVEL_TIME_KEYS.has(query.keyTime);
  /** Keeps the best `limit` of `found` (earliest, or latest), in ascending order. */
  const trim = () => {
    found.sort((a, b) => a.ts - b.ts);
    if (found.length <= limit) return;
    const dropped = newestFirst ? found.splice(0, found.length - limit) : found.splice(limit);
    for (const d of dropped) bytes -= Buffer.byteLength(d.json) + 1;
  };
  let enoughAt: number | undefined;
  for await (const day of days) {
    const d = dayOfDate(day.localDate);
    if (enoughAt !== undefined && Math.abs(d - enoughAt) > FILING_SKEW_DAYS) break;
    const drawn: Timed[] = [];
    drawEntries(day.entries, query, seen, drawn);
    for (const { ts, entry } of drawn) {
      const json = JSON.stringify(entry);
      found.push({ ts, json });
      bytes += Buffer.byteLength(json) + 1;
    }
    // Entries beyond the limit do not count against the byte cap: they are dropped before it is judged.
    if (found.length >= 2 * limit || (bytes > maxBytes && found.length > limit)) trim();
    if (bytes > maxBytes) throw tooLarge();
    if (canStopEarly && enoughAt === undefined && found.length >= limit) enoughAt = d;
  }
  trim();
  return found;
}
