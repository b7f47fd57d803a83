import { LRUCache } from 'lru-cache';
import type { Cql } from '../cassandra/index.js';
import { forEachBounded } from '../runtime/for-each-bounded.js';

/**
 * Table `participant_activity` (schemas/cql/012): what the operators' console shows of each participant. The
 * converter records pushes, the trip builder trips; the console reads the whole table into its participant index
 * (a scan every refresh, never one per page); account deletion removes the row.
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

export interface TripActivity {
  trips: number;
  labelledTrips: number;
  /** End of the latest trip of the day just rendered, if it had any. */
  lastTripTs: number | undefined;
}

export interface ParticipantActivity {
  userId: string;
  firstPushTs: number | null;
  lastPushTs: number | null;
  platform: string | null;
  trips: number;
  labelledTrips: number;
  lastTripTs: number | null;
}

export interface ParticipantActivityTable {
  recordPushes(pushes: readonly PushActivity[]): Promise<void>;
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

export function createParticipantActivityTable(cql: Cql, { knownUsers = 100_000 } = {}): ParticipantActivityTable {
  // Users whose first push is known to be set: the conditional write (a Paxos round) is paid once per user per
  // process, not once per batch.
  const firstPushSet = new LRUCache<string, true>({ max: knownUsers });
  return {
    async recordPushes(pushes) {
      await forEachBounded(pushes, WRITES_AT_ONCE, async (p) => {
        const lastPush = {
          query: `UPDATE ${TABLE} USING TIMESTAMP ? SET last_push_ts = ? WHERE user_id = ?`,
          params: [micros(p.lastPushTs), p.lastPushTs, p.userId],
        };
        // One partition, one request: a phone's every push writes both.
        if (p.platform === undefined) await cql.write(lastPush.query, lastPush.params);
        else
          await cql.writeBatch([
            lastPush,
            { query: `UPDATE ${TABLE} SET platform = ? WHERE user_id = ?`, params: [p.platform, p.userId] },
          ]);
        if (firstPushSet.has(p.userId)) return;
        await cql.conditional(`UPDATE ${TABLE} SET first_push_ts = ? WHERE user_id = ? IF first_push_ts = null`, [
          p.firstPushTs,
          p.userId,
        ]);
        firstPushSet.set(p.userId, true);
      });
    },
    async recordTrips(userId, { trips, labelledTrips, lastTripTs }) {
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
          query: `UPDATE ${TABLE} USING TIMESTAMP ? SET last_trip_ts = ? WHERE user_id = ?`,
          params: [micros(lastTripTs), lastTripTs, userId],
        },
      ]);
    },
    async *all(pageSize = 5000) {
      for await (const row of cql.iterate(
        `SELECT user_id, first_push_ts, last_push_ts, platform, trips, labelled_trips, last_trip_ts FROM ${TABLE}`,
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
