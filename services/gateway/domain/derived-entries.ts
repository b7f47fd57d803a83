/**
 * The analysis keys `find_entries` serves from the trip builder's composite trips rather than the raw timeseries,
 * and how each is drawn out of a composite entry: the trip itself, or the full entries nested in it.
 */
const EXTRACTORS: Record<string, (composite: Entry) => Entry[]> = {
  'analysis/composite_trip': (c) => [c],
  // The v3.x label screen reads confirmed trips: the same trip under its origin key.
  'analysis/confirmed_trip': (c) => [{ ...c, metadata: { ...c.metadata, key: 'analysis/confirmed_trip' } }],
  'analysis/cleaned_section': (c) => (c.data['sections'] as Entry[] | undefined) ?? [],
  'analysis/recreated_location': (c) => (c.data['locations'] as Entry[] | undefined) ?? [],
  'analysis/confirmed_place': (c) =>
    [c.data['start_confirmed_place'], c.data['end_confirmed_place']].filter((p): p is Entry => p !== undefined),
};

export interface Entry {
  _id: { $oid: string };
  metadata: Record<string, unknown>;
  data: Record<string, unknown>;
}

export function isDerivedKey(key: string): boolean {
  return key in EXTRACTORS;
}

/** The value of `metadata.write_ts`, `data.end_ts` and the like; undefined when the entry has no such field. */
function timeOf(entry: Entry, keyTime: string): number | undefined {
  const [root, field] = keyTime.split('.', 2);
  const holder = root === 'metadata' ? entry.metadata : root === 'data' ? entry.data : undefined;
  const value = holder && field ? holder[field] : undefined;
  return typeof value === 'number' ? value : undefined;
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
  const seen = new Set<string>();
  const found: { ts: number; entry: Entry }[] = [];
  for (const key of keys) {
    const extract = EXTRACTORS[key];
    if (!extract) continue;
    for (const composite of composites) {
      for (const entry of extract(composite)) {
        const ts = timeOf(entry, keyTime);
        const id = `${key}|${entry._id.$oid}`;
        if (ts === undefined || ts < start || ts > end || seen.has(id)) continue;
        seen.add(id);
        found.push({ ts, entry });
      }
    }
  }
  return found.sort((a, b) => a.ts - b.ts).map((f) => f.entry);
}

/**
 * The trip-local dates whose composite trips can hold an entry timed in [start, end]: a trip is filed under the
 * local date of its start, which is up to 14 hours off UTC, and lasts at most a day.
 */
export function compositeDateRange(start: number, end: number): { from: string; to: string } {
  const DAY = 86_400;
  const clamp = (ts: number) => Math.min(Math.max(ts, 0), 253_402_300_799); // 9999-12-31T23:59:59Z
  const date = (ts: number) => new Date(clamp(ts) * 1000).toISOString().slice(0, 10);
  return { from: date(start - 2 * DAY), to: date(end + DAY) };
}

/** Raw entries (as stored JSON) and derived ones in one list, ordered by `keyTime`; rare, so parsing is fine. */
export function mergeByTime(raw: readonly string[], derived: readonly Entry[], keyTime: string): string[] {
  const all = [
    ...raw.map((json) => ({ json, ts: timeOf(JSON.parse(json) as Entry, keyTime) ?? 0 })),
    ...derived.map((e) => ({ json: JSON.stringify(e), ts: timeOf(e, keyTime) ?? 0 })),
  ];
  return all.sort((a, b) => a.ts - b.ts).map((e) => e.json);
}
