import { createHash } from 'node:crypto';

/**
 * Everything that names an entry or an object the phone reads, in one place. Stored rows, the phone's cached labels
 * and idempotent retries all depend on these values staying the same for the same input: a change to any function
 * here re-keys existing data. entry-identity.test.ts pins known outputs.
 *
 * Two kinds of object id exist, and they are not interchangeable:
 * - entryObjectId: an entry the phone pushed, named by what identifies it (user, type, key, write time);
 * - derivedObjectId: an object the server makes (trip, place, section, prediction), named by what it is.
 */

/**
 * An entry's identity, as one string: user, type, key and write time, in that order, separated by NUL (which no
 * uuid, type or key holds, so two identities never spell the same string). The same entry pushed twice, or
 * replayed from a dead letter, has the same key.
 */
export function entryKey(userId: string, type: string, key: string, writeTs: number): string {
  return `${userId}\u0000${type}\u0000${key}\u0000${writeTs}`;
}

/** A stored entry's `_id.$oid`: 24 hex digits of the SHA-1 of its entryKey, so a re-push keeps its id. */
export function entryObjectId(userId: string, type: string, key: string, writeTs: number): string {
  return createHash('sha1')
    .update(entryKey(userId, type, key, writeTs))
    .digest('hex')
    .slice(0, 24);
}

/**
 * A short digest of an entry's identity (22 base64url characters, 128 bits of SHA-256 over its entryKey): what a
 * tally of millions of entries holds per entry instead of the entry, to tell them apart within one run.
 */
export function entryDigest(userId: string, type: string, key: string, writeTs: number): string {
  return createHash('sha256')
    .update(entryKey(userId, type, key, writeTs))
    .digest('base64url')
    .slice(0, 22);
}

/**
 * The id of an object the server derives (a trip, a place, a section, a prediction), 24 hex digits in the shape
 * of a MongoDB ObjectId, which the phone app reads as `{"$oid": …}`. Made from what the object is (user, kind,
 * time, index) joined by `|`, so a rebuild of the same trip gives it the same id and the phone's cached labels stay
 * attached. Three rounds of an FNV-style hash with different seeds: cheap enough for every location of a day.
 */
export function derivedObjectId(...parts: (string | number)[]): string {
  const text = parts.join('|');
  let out = '';
  for (const seed of [0x811c9dc5, 0x01000193, 0x9e3779b9]) {
    let h = seed >>> 0;
    for (let i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
      h = (h ^ (h >>> 13)) >>> 0;
    }
    out += h.toString(16).padStart(8, '0');
  }
  return out;
}

const OBJECT_ID_TEXT = /^[0-9a-fA-F]{24}$/;

/** Whether `text` spells an ObjectId: 24 hex digits, either case (dumps write both). */
export function isObjectIdText(text: string): boolean {
  return OBJECT_ID_TEXT.test(text);
}

/** A user id as e-mission stores it in a document's `user_id`: `{"$uuid": "<32 hex, no dashes>"}`. */
export function bsonUuid(uuid: string): { $uuid: string } {
  return { $uuid: uuid.replace(/-/g, '') };
}
