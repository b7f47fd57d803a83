import pLimit from 'p-limit';
import type { Cql, Statement } from '../../../shared/cassandra/index.js';
import {
  createCompositeEntriesTable,
  createDiaryDaysTable,
  createLabelTripMetricsTable,
  createParticipantActivityTable,
  createPipelineStateTable,
  createSectionMetricsTable,
  createTripLabelCountsTable,
  type SectionFact,
} from '../../../shared/tables/index.js';
import type { PlaceAnchor } from '../domain/cleaning/cleaned-trip.js';
import { isLabeled, isTripComposite } from '../domain/diary/composite-trip.js';
import { tripLabelFacts } from '../domain/diary/trip-label-facts.js';
import { tripLocalDate } from '../domain/diary/trip-geojson.js';
import { predictedModeOf } from '../domain/modes/index.js';
import type { BuiltTrip } from '../domain/timeline/build-trips.js';
import type { IndexedTrip, RenderedDay, TripStore } from '../stores.js';

const INDEX_COLUMNS = 'raw_start_ts, local_date, place_before, start_ts, end_ts';
/**
 * Old trips read at once when a rebuild replaces them (for their sections' metric rows): a late day can replace
 * hundreds, and one read after another made a rebuild wait a round trip each.
 */
const OLD_TRIP_READS = 16;

function parsePlace(text: unknown): PlaceAnchor | undefined {
  return typeof text === 'string' && text !== '' ? (JSON.parse(text) as PlaceAnchor) : undefined;
}

function toIndexed(row: Record<string, unknown>): IndexedTrip {
  return {
    rawStartTs: Number(row['raw_start_ts']),
    localDate: String(row['local_date']),
    placeBefore: parsePlace(row['place_before']),
    startTs: Number(row['start_ts']),
    endTs: Number(row['end_ts']),
  };
}

/**
 * A trip's rows of the section metrics, by the inferred mode (WALKING, CAR, BUS…): e-mission's metrics summarise
 * `analysis/inferred_section` unless configured otherwise.
 */
export function sectionFacts(userId: string, trip: BuiltTrip): SectionFact[] {
  return trip.sections.map((s) => ({
    userId,
    startTs: s.startTs,
    timeZone: trip.timeZone,
    mode: predictedModeOf(s),
    distance: s.distance,
    duration: s.duration,
  }));
}

export function createCassandraTripStore(cql: Cql): TripStore {
  const sectionMetrics = createSectionMetricsTable(cql);
  const diaryDays = createDiaryDaysTable(cql);
  const compositeEntries = createCompositeEntriesTable(cql);
  const labelCounts = createTripLabelCountsTable(cql);
  const labelMetrics = createLabelTripMetricsTable(cql);
  const pipelineState = createPipelineStateTable(cql);
  const activity = createParticipantActivityTable(cql);
  async function readTrip(userId: string, localDate: string, rawStartTs: number): Promise<BuiltTrip | undefined> {
    const rs = await cql.read(
      'SELECT trip FROM trips_by_day WHERE user_id = ? AND local_date = ? AND raw_start_ts = ?',
      [userId, localDate, rawStartTs],
    );
    const row = rs.rows[0];
    return row ? (JSON.parse(String(row['trip'])) as BuiltTrip) : undefined;
  }

  /** The user's totals for the operators' console, once the day's counts are written. */
  async function recordActivity(userId: string, composites: RenderedDay['composites']) {
    const totals = await labelCounts.totals(userId);
    const ends = composites.filter(isTripComposite).map((c) => Number(c.data['end_ts']));
    await activity.recordTrips(userId, {
      trips: totals.totalTrips,
      labelledTrips: totals.labeledTrips,
      lastTripTs: ends.length > 0 ? Math.max(...ends) : undefined,
    });
  }

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
    await writeCompositeDay(userId, localDate, composites, tripsUnchanged);
    await recordActivity(userId, composites);
  }

  async function writeCompositeDay(
    userId: string,
    localDate: string,
    composites: RenderedDay['composites'],
    tripsUnchanged: boolean,
  ) {
    const labelFacts = tripLabelFacts(composites).map((f) => ({ ...f, userId }));
    if (composites.length === 0) {
      await Promise.all([
        compositeEntries.saveDay(userId, localDate, []),
        labelCounts.remove(userId, localDate),
        labelMetrics.replaceDay(userId, localDate, labelFacts),
      ]);
      return;
    }
    const [saved] = await Promise.all([
      compositeEntries.saveDay(userId, localDate, composites),
      labelCounts.save(userId, localDate, {
        totalTrips: composites.filter(isTripComposite).length,
        labeledTrips: composites.filter(isLabeled).length,
      }),
    ]);
    // A relabel that finds an entry gone (a rebuild that crashed before it rendered this day) looks for stale rows too.
    await (tripsUnchanged && saved.deleted === 0
      ? labelMetrics.upsertDay(userId, localDate, labelFacts)
      : labelMetrics.replaceDay(userId, localDate, labelFacts));
  }

  return {
    async resumePoint(userId) {
      const rs = await cql.read('SELECT resume_from_ts, resume_place FROM trip_builder_state WHERE user_id = ?', [
        userId,
      ]);
      const row = rs.rows[0];
      if (!row || row['resume_from_ts'] === null) return undefined;
      return { fromTs: Number(row['resume_from_ts']), place: parsePlace(row['resume_place']) };
    },
    async saveResumePoint(userId, resume) {
      await cql.write(
        'INSERT INTO trip_builder_state (user_id, resume_from_ts, resume_place, update_ts) VALUES (?, ?, ?, ?)',
        [userId, resume.fromTs, resume.place ? JSON.stringify(resume.place) : '', new Date()],
      );
    },
    async indexFrom(userId, fromTs) {
      const rs = Number.isFinite(fromTs)
        ? await cql.read(`SELECT ${INDEX_COLUMNS} FROM trip_index WHERE user_id = ? AND raw_start_ts >= ?`, [
            userId,
            fromTs,
          ])
        : await cql.read(`SELECT ${INDEX_COLUMNS} FROM trip_index WHERE user_id = ?`, [userId]);
      return rs.rows.map(toIndexed);
    },
    async tripBefore(userId, ts) {
      const rs = await cql.read(
        `SELECT ${INDEX_COLUMNS} FROM trip_index WHERE user_id = ? AND raw_start_ts < ? ORDER BY raw_start_ts DESC LIMIT 1`,
        [userId, ts],
      );
      return rs.rows[0] ? toIndexed(rs.rows[0]) : undefined;
    },
    async neighbours(userId, beforeTs, afterTs) {
      const [before, after] = await Promise.all([
        cql.read(
          `SELECT ${INDEX_COLUMNS} FROM trip_index WHERE user_id = ? AND raw_start_ts < ? ORDER BY raw_start_ts DESC LIMIT 1`,
          [userId, beforeTs],
        ),
        cql.read(`SELECT ${INDEX_COLUMNS} FROM trip_index WHERE user_id = ? AND raw_start_ts > ? LIMIT 1`, [
          userId,
          afterTs,
        ]),
      ]);
      const p = before.rows[0] ? toIndexed(before.rows[0]) : undefined;
      const n = after.rows[0] ? toIndexed(after.rows[0]) : undefined;
      const [previous, next] = await Promise.all([
        p ? readTrip(userId, p.localDate, p.rawStartTs) : undefined,
        n ? readTrip(userId, n.localDate, n.rawStartTs) : undefined,
      ]);
      return { previous, next };
    },
    async tripsOfDay(userId, localDate) {
      const rs = await cql.read('SELECT trip FROM trips_by_day WHERE user_id = ? AND local_date = ?', [
        userId,
        localDate,
      ]);
      return rs.rows.map((r) => JSON.parse(String(r['trip'])) as BuiltTrip);
    },
    async replaceTrips(userId, old, fresh) {
      const freshStarts = new Set(fresh.map((t) => t.rawStartTs));
      const deletes: Statement[] = [];
      const limit = pLimit(OLD_TRIP_READS);
      const befores = await Promise.all(old.map((o) => limit(() => readTrip(userId, o.localDate, o.rawStartTs))));
      for (const [i, o] of old.entries()) {
        const before = befores[i];
        for (const s of before?.sections ?? []) deletes.push(sectionMetrics.remove(userId, s.startTs));
        if (freshStarts.has(o.rawStartTs)) continue;
        deletes.push(
          { query: 'DELETE FROM trip_index WHERE user_id = ? AND raw_start_ts = ?', params: [userId, o.rawStartTs] },
          {
            query: 'DELETE FROM trips_by_day WHERE user_id = ? AND local_date = ? AND raw_start_ts = ?',
            params: [userId, o.localDate, o.rawStartTs],
          },
        );
      }
      await Promise.all(deletes.map((d) => cql.write(d.query, d.params)));
      const writes: Statement[] = [];
      for (const t of fresh) {
        const localDate = tripLocalDate(t);
        writes.push(
          {
            query: 'INSERT INTO trips_by_day (user_id, local_date, raw_start_ts, trip) VALUES (?, ?, ?, ?)',
            params: [userId, localDate, t.rawStartTs, JSON.stringify(t)],
          },
          {
            query:
              'INSERT INTO trip_index (user_id, raw_start_ts, local_date, place_before, start_ts, end_ts) VALUES (?, ?, ?, ?, ?, ?)',
            params: [
              userId,
              t.rawStartTs,
              localDate,
              t.placeBefore ? JSON.stringify(t.placeBefore) : '',
              t.startTs,
              t.endTs,
            ],
          },
        );
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
    async latestTrips(userId, limit) {
      const rs = await cql.read(
        `SELECT ${INDEX_COLUMNS} FROM trip_index WHERE user_id = ? ORDER BY raw_start_ts DESC LIMIT ?`,
        [userId, limit],
      );
      return rs.rows.map(toIndexed);
    },
    async firstTrip(userId) {
      const rs = await cql.read(`SELECT ${INDEX_COLUMNS} FROM trip_index WHERE user_id = ? LIMIT 1`, [userId]);
      return rs.rows[0] ? toIndexed(rs.rows[0]) : undefined;
    },
    async saveProgress(userId, progress) {
      await pipelineState.save(userId, progress);
    },
  };
}

/** Account deletion's part in the trip builder's own tables (trip_index, trips_by_day, trip_builder_state). */
export interface TripTablesEraser {
  /** Trip-local dates and start/end times of the user's trips, read before they are removed. */
  trips(userId: string): Promise<IndexedTrip[]>;
  /** Removes the user's trips of those dates, the trip index and the resume point. */
  removeUser(userId: string, localDates: Iterable<string>): Promise<void>;
}

export function createTripTablesEraser(cql: Cql): TripTablesEraser {
  return {
    async trips(userId) {
      const out: IndexedTrip[] = [];
      for await (const row of cql.iterate(`SELECT ${INDEX_COLUMNS} FROM trip_index WHERE user_id = ?`, [userId]))
        out.push(toIndexed(row));
      return out;
    },
    async removeUser(userId, localDates) {
      for (const localDate of new Set(localDates))
        await cql.write('DELETE FROM trips_by_day WHERE user_id = ? AND local_date = ?', [userId, localDate]);
      await cql.write('DELETE FROM trip_index WHERE user_id = ?', [userId]);
      await cql.write('DELETE FROM trip_builder_state WHERE user_id = ?', [userId]);
    },
  };
}

/** One row of trip_builder_state as the console reads it: where the user's next build starts (Unix seconds). */
export interface ResumePointRow {
  userId: string;
  resumeFromTs: number;
  /** When the trip builder last saved it (Unix seconds); null when unknown. */
  updateTs: number | null;
}

/** Rows per page of the resume-point scan. */
const RESUME_SCAN_PAGE = 5000;

/**
 * Every user's resume point, read page by page (RESUME_SCAN_PAGE rows at a time): a full scan of
 * trip_builder_state, for the operators' console, which runs it at most once per refresh, never per request.
 * Rows without a resume point are skipped.
 */
export async function* scanResumePoints(cql: Cql): AsyncGenerator<ResumePointRow> {
  for await (const r of cql.iterate(
    'SELECT user_id, resume_from_ts, update_ts FROM trip_builder_state',
    [],
    RESUME_SCAN_PAGE,
  )) {
    const from = r['resume_from_ts'];
    if (from === null || from === undefined) continue;
    const updated = r['update_ts'];
    yield {
      userId: String(r['user_id']),
      resumeFromTs: Number(from),
      updateTs: updated instanceof Date ? updated.getTime() / 1000 : null,
    };
  }
}
