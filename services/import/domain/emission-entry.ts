import { canonicalUuid, normaliseRecord, objectIdFromExtendedJson, uuidFromExtendedJson } from './extended-json.js';
import { ImportFormatError } from './import-format-error.js';

/**
 * One document of e-mission's `Stage_timeseries`, whichever tool dumped it: the owner as a canonical UUID, the
 * document's ObjectId when it had one, and `metadata`/`data` with Extended JSON normalised (extended-json.ts).
 * `file` is where it was read, for reports.
 */
export interface EmissionEntry {
  /** Lowercase 8-4-4-4-12. */
  userUuid: string;
  /** The `_id` as 24 lowercase hex digits; absent when the dump had none (a phone-side export). */
  oid?: string;
  metadata: Record<string, unknown>;
  data: Record<string, unknown>;
  file: string;
}

/**
 * Where a document sits in its file: `line` (1-based) in NDJSON, `element` (0-based index) in a JSON array,
 * neither when the whole file is meant.
 */
export interface EntryPlace {
  file: string;
  line?: number;
  element?: number;
}

/** Something left out of the import, and why: reported, never fatal, so one bad line costs one entry. */
export interface ImportSkip extends EntryPlace {
  reason: string;
}

/**
 * The user to give entries that carry no `user_id` (a dump of one phone's usercache, say): one UUID for all, or
 * one per file. Never used for an entry that has a `user_id`, even a malformed one.
 */
export type DefaultUser = string | ((file: string) => string | undefined);

export type DocumentReading = { ok: true; entry: EmissionEntry } | { ok: false; reason: string };

export function describePlace(place: EntryPlace): string {
  if (place.line !== undefined) return `${place.file}:${place.line}`;
  if (place.element !== undefined) return `${place.file} element ${place.element}`;
  return place.file;
}

/** Longest rendering of a dump value inside a reason: a reason is a report line, not a copy of the document. */
const MAX_REASON_VALUE_CHARS = 80;

function excerpt(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length <= MAX_REASON_VALUE_CHARS ? text : `${text.slice(0, MAX_REASON_VALUE_CHARS)}…`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The canonical UUID `defaultUser` gives `file`, or undefined when it gives none. A value that is not a UUID is the
 * caller's mistake, and would put every entry of the file under a user nobody can log in as: it stops the import.
 */
export function resolveDefaultUser(defaultUser: DefaultUser | undefined, file: string): string | undefined {
  const given = typeof defaultUser === 'function' ? defaultUser(file) : defaultUser;
  if (given === undefined) return undefined;
  const uuid = canonicalUuid(given);
  if (uuid === undefined) {
    throw new ImportFormatError(`default user ${JSON.stringify(given)} for ${file} is not a UUID`, {
      details: { file, defaultUser: given },
    });
  }
  return uuid;
}

/**
 * A parsed dump document as an EmissionEntry, or why it is not one. Throws ImportFormatError only for a document
 * without `user_id` when there is no `defaultUser` (already resolved by resolveDefaultUser): guessing an owner
 * would mix users, and skipping would silently drop a whole phone's data.
 */
export function toEmissionEntry(doc: unknown, place: EntryPlace, defaultUser?: string): DocumentReading {
  if (!isPlainObject(doc)) return { ok: false, reason: 'not a JSON object' };
  const { metadata, data } = doc;
  if (!isPlainObject(metadata)) return { ok: false, reason: 'metadata is not an object' };
  if (typeof metadata['key'] !== 'string' || metadata['key'] === '') {
    return { ok: false, reason: 'metadata.key is not a non-empty string' };
  }
  if (!isPlainObject(data)) return { ok: false, reason: 'data is not an object' };
  const rawUser = doc['user_id'];
  let userUuid: string | undefined;
  if (rawUser === undefined || rawUser === null) {
    userUuid = defaultUser;
    if (userUuid === undefined) {
      throw new ImportFormatError(`${describePlace(place)}: entry has no user_id and no default user was given`, {
        details: { ...place },
      });
    }
  } else {
    userUuid = uuidFromExtendedJson(rawUser);
    if (userUuid === undefined) return { ok: false, reason: `user_id ${excerpt(rawUser)} is not a UUID` };
  }
  const oid = objectIdFromExtendedJson(doc['_id']);
  return {
    ok: true,
    entry: {
      userUuid,
      ...(oid === undefined ? {} : { oid }),
      metadata: normaliseRecord(metadata),
      data: normaliseRecord(data),
      file: place.file,
    },
  };
}
