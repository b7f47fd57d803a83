import type { Cql, Statement } from '../cassandra/index.js';

/*
 * Table `custom_labels`: the labels a participant typed into the app (mode, purpose, replaced mode), one row per user,
 * label key and label, with how often it was chosen and whether it is still offered. Written and read by the gateway
 * (`/customlabel/*`); removed by account deletion.
 */
const TABLE = 'custom_labels';

export interface CustomLabelRow {
  label: string;
  createdAt: Date;
  frequency: number;
  active: boolean;
}

export interface CustomLabelsTable {
  /** At most `limit` rows of one user and key, in label order. */
  read(userId: string, key: string, limit: number): Promise<Map<string, CustomLabelRow>>;
  /** The write of one row's absolute values: an idempotent upsert a driver may retry. */
  upsert(userId: string, key: string, row: CustomLabelRow, now: Date): Statement;
  remove(userId: string, key: string, label: string): Statement;
}

export function createCustomLabelsTable(cql: Cql): CustomLabelsTable {
  return {
    async read(userId, key, limit) {
      const rs = await cql.read(
        `SELECT label, created_at, frequency, is_active FROM ${TABLE} WHERE user_id = ? AND label_key = ? LIMIT ?`,
        [userId, key, limit],
      );
      const rows = new Map<string, CustomLabelRow>();
      for (const row of rs.rows) {
        const label = String(row['label']);
        rows.set(label, {
          label,
          createdAt: row['created_at'] instanceof Date ? row['created_at'] : new Date(0),
          frequency: typeof row['frequency'] === 'number' ? row['frequency'] : 0,
          active: row['is_active'] === true,
        });
      }
      return rows;
    },
    upsert(userId, key, row, now) {
      return {
        query:
          `UPDATE ${TABLE} SET created_at = ?, frequency = ?, is_active = ?, update_ts = ? ` +
          'WHERE user_id = ? AND label_key = ? AND label = ?',
        params: [row.createdAt, row.frequency, row.active, now, userId, key, row.label],
      };
    },
    remove(userId, key, label) {
      return {
        query: `DELETE FROM ${TABLE} WHERE user_id = ? AND label_key = ? AND label = ?`,
        params: [userId, key, label],
      };
    },
  };
}

/** Account deletion's part in the table. */
export async function removeCustomLabels(cql: Cql, userId: string): Promise<void> {
  await cql.write(`DELETE FROM ${TABLE} WHERE user_id = ?`, [userId]);
}
