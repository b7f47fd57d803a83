import pLimit from 'p-limit';
import type { Cql, Statement } from '../../../shared/cassandra/index.js';
import { createTripBuilderStateTable, createTripsTable, openTables } from '../../../shared/tables/index.js';
import type { PlaceAnchor } from '../domain/cleaning/cleaned-trip.js';
import { compositeDayFacts, sectionFacts } from '../domain/diary/day-facts.js';
import { tripLocalDate } from '../domain/diary/trip-geojson.js';
import type { BuiltTrip } from '../domain/timeline/build-trips.js';
import type { RenderedDay, TripStore } from '../stores.js';

/**
 * Old trips read at once when a rebuild replaces them (for their sections' metric rows): a late day can replace
 * hundreds, and one read after another made a rebuild wait a round trip each.
 */
const OLD_TRIP_READS = 16;

/** The trip builder's storage over the tables' owner modules (shared/tables/); what it writes is decided in domain/. */
export function createCassandraTripStore(cql: Cql): TripStore {
  const trips = createTripsTable<BuiltTrip, PlaceAnchor>(cql);
  const state = createTripBuilderStateTable<PlaceAnchor>(cql);
  const { sectionMetrics, diaryDays, compositeEntries, labelCounts, labelMetrics, pipelineState, activity } =
    openTables(cql);

  /**
   * `tripsUnchanged`: the date's trips are those of its last save (a relabel), so no label-metric row can have
   * become stale and none is looked for.
   */
  async function saveCompositeDay(
    userId: string,
    localDate: string,
    composites: RenderedDay['composites'],
    { tripsUnchanged = false } = {},
  ) {
    const facts = compositeDayFacts(composites);
    const labelFacts = facts.labelFacts.map((f) => ({ ...f, userId }));
    if (composites.length === 0) {
      await Promise.all([
        compositeEntries.saveDay(userId, localDate, []),
        labelCounts.remove(userId, localDate),
        labelMetrics.replaceDay(userId, localDate, labelFacts),
      ]);
    } else {
      const [saved] = await Promise.all([
        compositeEntries.saveDay(userId, localDate, composites),
        labelCounts.save(userId, localDate, { totalTrips: facts.totalTrips, labeledTrips: facts.labeledTrips }),
      ]);
      // A relabel that finds an entry gone (a rebuild that crashed before it rendered this day) looks for stale rows.
      await (tripsUnchanged && saved.deleted === 0
        ? labelMetrics.upsertDay(userId, localDate, labelFacts)
        : labelMetrics.replaceDay(userId, localDate, labelFacts));
    }
    // The user's totals for the operators' console, once the day's counts are written.
    const totals = await labelCounts.totals(userId);
    await activity.recordTrips(userId, {
      trips: totals.totalTrips,
      labelledTrips: totals.labeledTrips,
      lastTripTs: facts.lastTripEnd,
      lastTripLocal: facts.lastTripEndLocal,
    });
  }

  return {
    resumePoint: (userId) => state.read(userId),
    saveResumePoint: (userId, resume) => state.save(userId, resume),
    indexFrom: (userId, fromTs) => trips.indexFrom(userId, fromTs),
    tripBefore: (userId, ts) => trips.indexBefore(userId, ts),
    async neighbours(userId, beforeTs, afterTs) {
      const [p, n] = await Promise.all([trips.indexBefore(userId, beforeTs), trips.indexAfter(userId, afterTs)]);
      const [previous, next] = await Promise.all([
        p ? trips.read(userId, p.localDate, p.rawStartTs) : undefined,
        n ? trips.read(userId, n.localDate, n.rawStartTs) : undefined,
      ]);
      return { previous, next };
    },
    tripsOfDay: (userId, localDate) => trips.ofDay(userId, localDate),
    async replaceTrips(userId, old, fresh) {
      const freshStarts = new Set(fresh.map((t) => t.rawStartTs));
      const deletes: Statement[] = [];
      const limit = pLimit(OLD_TRIP_READS);
      const befores = await Promise.all(old.map((o) => limit(() => trips.read(userId, o.localDate, o.rawStartTs))));
      for (const [i, o] of old.entries()) {
        for (const s of befores[i]?.sections ?? []) deletes.push(sectionMetrics.remove(userId, s.startTs));
        if (!freshStarts.has(o.rawStartTs)) deletes.push(...trips.remove(userId, o.localDate, o.rawStartTs));
      }
      await Promise.all(deletes.map((d) => cql.write(d.query, d.params)));
      const writes: Statement[] = [];
      for (const t of fresh) {
        writes.push(...trips.put(userId, tripLocalDate(t), t));
        for (const f of sectionFacts(userId, t)) writes.push(sectionMetrics.insert(f));
      }
      await Promise.all(writes.map((w) => cql.write(w.query, w.params)));
    },
    async saveDiaryDay(userId, localDate, day) {
      await Promise.all([
        day.timeline.length === 0
          ? diaryDays.remove(userId, localDate)
          : diaryDays.save(userId, localDate, day.timeline),
        saveCompositeDay(userId, localDate, day.timeline.length === 0 ? [] : day.composites),
      ]);
    },
    relabelDay: (userId, localDate, composites) =>
      saveCompositeDay(userId, localDate, composites, { tripsUnchanged: true }),
    latestTrips: (userId, limit) => trips.latest(userId, limit),
    firstTrip: (userId) => trips.first(userId),
    async saveProgress(userId, progress) {
      await pipelineState.save(userId, progress);
    },
  };
}
