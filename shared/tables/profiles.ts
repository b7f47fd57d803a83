import type { Cql } from '../cassandra/index.js';

/**
 * Table `profiles` (schemas/cql/001): each user's profile document, as e-mission keeps it. Written by registration
 * (the gateway, an import) and `/profile/update`; read by the gateway and the console; removed by deletion.
 */
export interface ProfilesTable {
  get(userId: string): Promise<Record<string, unknown> | undefined>;
  /** Shallow `$set` of the given fields, as e-mission's `/profile/update`. */
  update(userId: string, fields: Record<string, unknown>): Promise<void>;
  create(userId: string, doc: Record<string, unknown>): Promise<void>;
}

export function createProfilesTable(cql: Cql): ProfilesTable {
  async function get(userId: string) {
    const rs = await cql.read('SELECT doc FROM profiles WHERE user_id = ?', [userId]);
    const doc = rs.rows[0]?.['doc'];
    return typeof doc === 'string' ? (JSON.parse(doc) as Record<string, unknown>) : undefined;
  }
  return {
    get,
    async update(userId, fields) {
      const current = (await get(userId)) ?? {};
      const now = new Date();
      await cql.write('UPDATE profiles SET doc = ?, update_ts = ? WHERE user_id = ?', [
        JSON.stringify({ ...current, ...fields, update_ts: now.getTime() / 1000 }),
        now,
        userId,
      ]);
    },
    async create(userId, doc) {
      // IF NOT EXISTS: re-registering a token must not wipe the profile the user already has.
      await cql.conditional('INSERT INTO profiles (user_id, doc, update_ts) VALUES (?, ?, ?) IF NOT EXISTS', [
        userId,
        JSON.stringify(doc),
        new Date(),
      ]);
    },
  };
}

/** Account deletion's part in the profiles table. */
export async function removeProfile(cql: Cql, userId: string): Promise<void> {
  await cql.write('DELETE FROM profiles WHERE user_id = ?', [userId]);
}
