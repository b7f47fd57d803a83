import { createHash } from 'node:crypto';
import type { Cql, Statement } from '../cassandra/index.js';

/**
 * Table `composite_entries` (schemas/cql/009): the `analysis/composite_trip` entries (trips and untracked
 * periods, labelled) that `find_entries` serves to the current app, one row per entry clustered by `data.end_ts`,
 * plus one manifest row per trip-local date. Written by the trip builder each time it renders a day (only what
 * changed); read by the gateway; removed with the user.
 */
const TABLE = 'composite_entries';

/**
 * Manifest rows sort before every entry (end times are positive) and are never inside a read's range: they live
 * in the user's partition so that a day's entries and its manifest change in one atomic batch.
 */
const MANIFEST_END_TS = -1;
const manifestId = (localDate: string) => `manifest/${localDate}`;

/** One stored entry: its JSON text as the app receives it, and what it is ordered and filed by. */
export interface StoredComposite {
  endTs: number;
  /** `_id.$oid`: the same trip filed under two dates for a moment (see the schema) is one entry. */
  entryId: string;
  localDate: string;
  json: string;
}

/** What the manifest keeps of an entry: its key in the table and a hash of its text. */
interface ManifestItem {
  endTs: number;
  id: string;
  hash: string;
}

export interface CompositeEntriesTable {
  /**
   * Makes the stored entries of one trip-local date equal to `composites`: writes the entries that are new or
   * changed, deletes those gone, in one batch. Returns how many entries were written and deleted.
   */
  saveDay(
    userId: string,
    localDate: string,
    composites: readonly unknown[],
  ): Promise<{ written: number; deleted: number }>;
  /** The entries whose end is in [fromEndTs, toEndTs], in end order (or newest first), streamed in pages. */
  range(
    userId: string,
    fromEndTs: number,
    toEndTs: number,
    options?: { newestFirst?: boolean; pageSize?: number },
  ): AsyncIterable<StoredComposite>;
  /** Every entry and manifest of the user. */
  removeUser(userId: string): Promise<void>;
}

interface Composite {
  _id: { $oid: string };
  data: { end_ts: number };
}

function hashOf(json: string): string {
  return createHash('sha1').update(json).digest('base64');
}

export function createCompositeEntriesTable(cql: Cql): CompositeEntriesTable {
  const insert = `INSERT INTO ${TABLE} (user_id, end_ts, entry_id, local_date, entry) VALUES (?, ?, ?, ?, ?)`;
  const remove = `DELETE FROM ${TABLE} WHERE user_id = ? AND end_ts = ? AND entry_id = ? AND local_date = ?`;

  async function manifestOf(userId: string, localDate: string): Promise<ManifestItem[]> {
    const rs = await cql.read(
      `SELECT entry FROM ${TABLE} WHERE user_id = ? AND end_ts = ? AND entry_id = ? AND local_date = ?`,
      [userId, MANIFEST_END_TS, manifestId(localDate), localDate],
    );
    const text = rs.rows[0]?.['entry'];
    return typeof text === 'string' ? (JSON.parse(text) as ManifestItem[]) : [];
  }

  return {
    async saveDay(userId, localDate, composites) {
      const before = new Map((await manifestOf(userId, localDate)).map((m) => [`${m.endTs}|${m.id}`, m]));
      const statements: Statement[] = [];
      const manifest: ManifestItem[] = [];
      for (const composite of composites as readonly Composite[]) {
        const json = JSON.stringify(composite);
        const item = { endTs: composite.data.end_ts, id: composite._id.$oid, hash: hashOf(json) };
        manifest.push(item);
        const key = `${item.endTs}|${item.id}`;
        const old = before.get(key);
        before.delete(key);
        if (old?.hash !== item.hash)
          statements.push({ query: insert, params: [userId, item.endTs, item.id, localDate, json] });
      }
      const written = statements.length;
      for (const gone of before.values())
        statements.push({ query: remove, params: [userId, gone.endTs, gone.id, localDate] });
      if (statements.length === 0) return { written: 0, deleted: 0 };
      statements.push(
        manifest.length > 0
          ? {
              query: insert,
              params: [userId, MANIFEST_END_TS, manifestId(localDate), localDate, JSON.stringify(manifest)],
            }
          : { query: remove, params: [userId, MANIFEST_END_TS, manifestId(localDate), localDate] },
      );
      // One partition: applied atomically and in isolation, and exempt from the multi-partition batch size limits.
      await cql.writeBatch(statements);
      return { written, deleted: before.size };
    },

    async *range(userId, fromEndTs, toEndTs, { newestFirst = false, pageSize = 20 } = {}) {
      const from = Math.max(fromEndTs, 0); // never a manifest
      if (from > toEndTs) return;
      const order = newestFirst ? 'DESC' : 'ASC';
      for await (const row of cql.iterate(
        `SELECT end_ts, entry_id, local_date, entry FROM ${TABLE} WHERE user_id = ? AND end_ts >= ? AND end_ts <= ? ORDER BY end_ts ${order}`,
        [userId, from, toEndTs],
        // An entry carries its trip's resampled locations (tens of kB): a page of a few keeps a page small.
        pageSize,
      )) {
        yield {
          endTs: Number(row['end_ts']),
          entryId: String(row['entry_id']),
          localDate: String(row['local_date']),
          json: String(row['entry']),
        };
      }
    },

    async removeUser(userId) {
      await cql.write(`DELETE FROM ${TABLE} WHERE user_id = ?`, [userId]);
    },
  };
}
