import type { Cql } from '../cassandra/index.js';

/*
 * Table `trip_builder_state`: per user, where the trip builder's next build starts (its resume point) and the place
 * the user was at then. Written and read by the trip builder; scanned by the console (users whose trips lag their
 * pushes); removed by account deletion. The place's shape is the trip builder's, stored as JSON (`P`).
 */
const TABLE = 'trip_builder_state';

/** Rows per page of the full scan. */
const SCAN_PAGE = 5000;

export interface ResumePointOf<P> {
  /** Unix seconds. */
  fromTs: number;
  place: P | undefined;
}

/** One row as the console's scan reads it: where the user's next build starts (Unix seconds). */
export interface ResumePointRow {
  userId: string;
  resumeFromTs: number;
  /** When the trip builder last saved it (Unix seconds); null when unknown. */
  updateTs: number | null;
}

export interface TripBuilderStateTable<P> {
  read(userId: string): Promise<ResumePointOf<P> | undefined>;
  save(userId: string, resume: ResumePointOf<P>): Promise<void>;
  removeUser(userId: string): Promise<void>;
  /**
   * Every user's resume point, SCAN_PAGE rows at a time: a full scan, which the console runs at most once per
   * refresh, never per request. Rows without a resume point are skipped.
   */
  scan(): AsyncGenerator<ResumePointRow>;
}

export function createTripBuilderStateTable<P>(cql: Cql): TripBuilderStateTable<P> {
  return {
    async read(userId) {
      const rs = await cql.read(`SELECT resume_from_ts, resume_place FROM ${TABLE} WHERE user_id = ?`, [userId]);
      const row = rs.rows[0];
      if (!row || row['resume_from_ts'] === null) return undefined;
      const place = row['resume_place'];
      return {
        fromTs: Number(row['resume_from_ts']),
        place: typeof place === 'string' && place !== '' ? (JSON.parse(place) as P) : undefined,
      };
    },
    async save(userId, resume) {
      await cql.write(`INSERT INTO ${TABLE} (user_id, resume_from_ts, resume_place, update_ts) VALUES (?, ?, ?, ?)`, [
        userId,
        resume.fromTs,
        resume.place ? JSON.stringify(resume.place) : '',
        new Date(),
      ]);
    },
    async removeUser(userId) {
      await cql.write(`DELETE FROM ${TABLE} WHERE user_id = ?`, [userId]);
    },
    async *scan() {
      for await (const r of cql.iterate(`SELECT user_id, resume_from_ts, update_ts FROM ${TABLE}`, [], SCAN_PAGE)) {
        const from = r['resume_from_ts'];
        if (from === null || from === undefined) continue;
        const updated = r['update_ts'];
        yield {
          userId: String(r['user_id']),
          resumeFromTs: Number(from),
          updateTs: updated instanceof Date ? updated.getTime() / 1000 : null,
        };
      }
    },
  };
}
