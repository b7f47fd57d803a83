import { LRUCache } from 'lru-cache';
import type { Cql, Statement } from '../cassandra/index.js';
import { forEachBounded } from '../runtime/for-each-bounded.js';

/**
 * Table `participant_activity` (schemas/cql/012, 018, 021): what the operators' console shows of each participant. The
 * converter records pushes and what the phone sensed (its last location, its last tracking state), the trip builder
 * trips; the console reads the whole table into its participant index (a scan every refresh, never one per page);
 * account deletion removes the row.
 */
const TABLE = 'participant_activity';
/** Users of one batch whose rows are written at once. */
const WRITES_AT_ONCE = 16;

export interface PushActivity {
  userId: string;
  /** Unix seconds: the earliest and latest Kafka timestamps of the user's records in a batch (when they were put). */
  firstPushTs: number;
  lastPushTs: number;
  /** `metadata.platform` of the user's entries (android, ios), when they carried one. */
  platform: string | undefined;
}

/** What a batch of one user's converted entries says of the phone: its newest location and tracking state. */
export interface SensingActivity {
  userId: string;
  /** `data.ts` of the newest entry of any kind in the batch (Unix seconds), if one had a time. */
  lastDataTs: number | undefined;
  /** `data.ts` of the newest location in the batch (Unix seconds), if it held one. */
  lastLocationTs: number | undefined;
  /** The state the newest transition reached (e-mission's State enum) and its `data.ts`, if it held one. */
  lastState: { state: number; ts: number } | undefined;
  /** `metadata.write_ts` of the newest label, survey answer or note (`manual/*`) in the batch, if it held one. */
  lastLabelTs?: number | undefined;
}

export interface TripActivity {
  trips: number;
  labelledTrips: number;
  /** End of the latest trip of the day just rendered, if it had any. */
  lastTripTs: number | undefined;
  /** That end as the trip's local time, ISO 8601 with its offset (`2016-08-10T17:04:11-07:00`). */
  lastTripLocal?: string | undefined;
}

export interface ParticipantActivity {
  userId: string;
  firstPushTs: number | null;
  lastPushTs: number | null;
  platform: string | null;
  trips: number;
  labelledTrips: number;
  lastTripTs: number | null;
  lastTripLocal: string | null;
  lastDataTs: number | null;
  lastLocationTs: number | null;
  lastState: number | null;
  lastStateTs: number | null;
  lastLabelTs: number | null;
}

export interface ParticipantActivityTable {
  /** A converter batch's pushes and what the phones sensed, one request per user (plus its first push, once). */
  record(pushes: readonly PushActivity[], sensing?: readonly SensingActivity[]): Promise<void>;
  recordTrips(userId: string, activity: TripActivity): Promise<void>;
  /** Every row, a page of `pageSize` at a time. */
  all(pageSize?: number): AsyncGenerator<ParticipantActivity>;
  removeUser(userId: string): Promise<void>;
}

/**
 * Microseconds, as Cassandra's write timestamps: a fact written with its own time wins over older facts. Never
 * later than now: a phone's clock can be years ahead, and a cell stamped in the future would outlive deletion.
 */
const micros = (seconds: number) => Math.round(Math.min(seconds, Date.now() / 1000) * 1_000_000);
const numberOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/** A push's writes: its last time under that time as the write timestamp, and the platform when it named one. */
function pushStatements(p: PushActivity): Statement[] {
  const lastPush = {
    query: `UPDATE ${TABLE} USING TIMESTAMP ? SET last_push_ts = ? WHERE user_id = ?`,
    params: [micros(p.lastPushTs), p.lastPushTs, p.userId],
  };
  if (p.platform === undefined) return [lastPush];
  return [lastPush, { query: `UPDATE ${TABLE} SET platform = ? WHERE user_id = ?`, params: [p.platform, p.userId] }];
}

/** Each sensing fact under its own time as the write timestamp: the newest wins, whatever order batches land in. */
function sensingStatements(f: SensingActivity): Statement[] {
  const writes: Statement[] = [];
  if (f.lastDataTs !== undefined)
    writes.push({
      query: `UPDATE ${TABLE} USING TIMESTAMP ? SET last_data_ts = ? WHERE user_id = ?`,
      params: [micros(f.lastDataTs), f.lastDataTs, f.userId],
    });
  if (f.lastLocationTs !== undefined)
    writes.push({
      query: `UPDATE ${TABLE} USING TIMESTAMP ? SET last_location_ts = ? WHERE user_id = ?`,
      params: [micros(f.lastLocationTs), f.lastLocationTs, f.userId],
    });
  if (f.lastLabelTs !== undefined)
    writes.push({
      query: `UPDATE ${TABLE} USING TIMESTAMP ? SET last_label_ts = ? WHERE user_id = ?`,
      params: [micros(f.lastLabelTs), f.lastLabelTs, f.userId],
    });
  if (f.lastState !== undefined)
    writes.push({
      query: `UPDATE ${TABLE} USING TIMESTAMP ? SET last_state = ?, last_state_ts = ? WHERE user_id = ?`,
      params: [micros(f.lastState.ts), f.lastState.state, f.lastState.ts, f.userId],
    });
  return writes;
}

export function createParticipantActivityTable(cql: Cql, { knownUsers = 100_000 } = {}): ParticipantActivityTable {
  // Users whose first push is known to be set: the conditional write (a Paxos round) is paid once per user per
  // process, not once per batch.
  const firstPushSet = new LRUCache<string, true>({ max: knownUsers });
  return {
    async record(pushes, sensing = []) {
      const byUser = new Map<string, { statements: Statement[]; firstPushTs?: number }>();
      const of = (userId: string) => {
        let user = byUser.get(userId);
        if (!user) byUser.set(userId, (user = { statements: [] }));
        return user;
      };
      for (const p of pushes) {
        const user = of(p.userId);
        user.statements.push(...pushStatements(p));
        user.firstPushTs = p.firstPushTs;
      }
      for (const f of sensing) of(f.userId).statements.push(...sensingStatements(f));
      await forEachBounded([...byUser], WRITES_AT_ONCE, async ([userId, { statements, firstPushTs }]) => {
        // One partition, one request: a batch's every fact of the user at once.
        if (statements.length === 1) await cql.write(statements[0]!.query, statements[0]!.params);
        else if (statements.length > 1) await cql.writeBatch(statements);
        if (firstPushTs === undefined || firstPushSet.has(userId)) return;
        await cql.conditional(`UPDATE ${TABLE} SET first_push_ts = ? WHERE user_id = ? IF first_push_ts = null`, [
          firstPushTs,
          userId,
        ]);
        firstPushSet.set(userId, true);
      });
    },
    async recordTrips(userId, { trips, labelledTrips, lastTripTs, lastTripLocal }) {
      const counts = {
        query: `UPDATE ${TABLE} SET trips = ?, labelled_trips = ? WHERE user_id = ?`,
        params: [trips, labelledTrips, userId],
      };
      if (lastTripTs === undefined) {
        await cql.write(counts.query, counts.params);
        return;
      }
      // One partition, one request (a label's render writes this row every time).
      await cql.writeBatch([
        counts,
        {
          query: `UPDATE ${TABLE} USING TIMESTAMP ? SET last_trip_ts = ?, last_trip_local = ? WHERE user_id = ?`,
          params: [micros(lastTripTs), lastTripTs, lastTripLocal ?? null, userId],
        },
      ]);
    },
    async *all(pageSize = 5000) {
      for await (const row of cql.iterate(
        `SELECT user_id, first_push_ts, last_push_ts, platform, trips, labelled_trips, last_trip_ts, last_trip_local, ` +
          `last_data_ts, last_location_ts, last_state, last_state_ts, last_label_ts FROM ${TABLE}`,
        [],
        pageSize,
      ))
        yield {
          userId: String(row['user_id']),
          firstPushTs: numberOrNull(row['first_push_ts']),
          lastPushTs: numberOrNull(row['last_push_ts']),
          platform: row['platform'] === null ? null : String(row['platform']),
          trips: Number(row['trips'] ?? 0),
          labelledTrips: Number(row['labelled_trips'] ?? 0),
          lastTripTs: numberOrNull(row['last_trip_ts']),
          lastTripLocal: typeof row['last_trip_local'] === 'string' ? row['last_trip_local'] : null,
          lastDataTs: numberOrNull(row['last_data_ts']),
          lastLocationTs: numberOrNull(row['last_location_ts']),
          lastState: numberOrNull(row['last_state']),
          lastStateTs: numberOrNull(row['last_state_ts']),
          lastLabelTs: numberOrNull(row['last_label_ts']),
        };
    },
    async removeUser(userId) {
      // Above every fact's own timestamp (they are the facts' times, never in the future), so nothing survives.
      await cql.write(`DELETE FROM ${TABLE} USING TIMESTAMP ? WHERE user_id = ?`, [
        micros(Date.now() / 1000) + 1,
        userId,
      ]);
      firstPushSet.delete(userId);
    },
  };
}
