import { isPlausibleTimestamp } from '../time/index.js';
import { MAX_CONVERTED_ENTRY_BYTES } from './entry-limits.js';
import { toUsercacheRecord, type UsercacheEntry, type UsercacheRecord } from './usercache-entry.js';

/*
 * What a put may carry onto the usercache topic: the checks of each entry's envelope and size, shared by the
 * gateway's /usercache/put and the import of a dump, so that both admit exactly the same entries.
 */

/** Why a request was refused, naming the first bad entry, so a developer can find it in a 10,000-entry batch. */
export class PutRejection {
  constructor(
    readonly message: string,
    readonly index: number | null,
    /** The entry is well formed but too large to carry (413), rather than malformed (400). */
    readonly tooLarge = false,
  ) {}
}

/**
 * Largest entry accepted, as the UTF-8 bytes of its metadata and data JSON: a quarter below the largest converted
 * entry the pipeline carries, since conversion adds fields. A real location is ~400 bytes; the biggest real
 * entries (a survey's XML response) are tens of KB.
 */
export const MAX_ENTRY_BYTES = Math.floor(MAX_CONVERTED_ENTRY_BYTES * 0.75);

/** Most entries one put may carry; the phone sends at most 10,000. */
export const MAX_ENTRIES_PER_PUT = 50_000;

/** e-mission's rule: a timestamp at or above 1e11 is in milliseconds (1e11 s is the year 5138). */
const MILLISECONDS_THRESHOLD = 1e11;
/** Longest key we accept; real keys are under 40 characters. */
const MAX_KEY_LENGTH = 200;

export function toSeconds(ts: number): number {
  return ts >= MILLISECONDS_THRESHOLD ? ts / 1000 : ts;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The types a phone pushes (`document` is server-to-phone only); e-mission's usercache knows no others. */
const PHONE_TYPES: ReadonlySet<string> = new Set(['message', 'sensor-data', 'rw-document']);

/** The type e-mission's phones give each kind of key, for clients that omit `metadata.type`. */
function defaultType(key: string): string {
  return key.startsWith('background/') ? 'sensor-data' : 'message';
}

/** One entry's envelope checked and normalised (seconds, a type), or why it is refused. */
export function checkEntry(raw: unknown, index: number): UsercacheEntry | PutRejection {
  const where = `phone_to_server[${index}]`;
  if (!isPlainObject(raw)) return new PutRejection(`${where} must be an object`, index);
  const { metadata, data } = raw;
  if (!isPlainObject(metadata)) return new PutRejection(`${where}.metadata must be an object`, index);
  const { key, write_ts: writeTs, type, platform } = metadata;
  if (typeof key !== 'string' || key.length === 0)
    return new PutRejection(`${where}.metadata.key must be a non-empty string`, index);
  if (key.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    return new PutRejection(
      `${where}.metadata.key must be printable ASCII without spaces, at most ${MAX_KEY_LENGTH} characters`,
      index,
    );
  }
  if (typeof writeTs !== 'number' || !Number.isFinite(writeTs) || writeTs <= 0) {
    return new PutRejection(`${where}.metadata.write_ts must be a positive number of seconds`, index);
  }
  if (!isPlausibleTimestamp(toSeconds(writeTs))) {
    return new PutRejection(
      `${where}.metadata.write_ts ${writeTs} is not a plausible time (seconds or milliseconds since 1970, before 2286)`,
      index,
    );
  }
  if (type === 'document') return new PutRejection(`${where}.metadata.type "document" is server-to-phone only`, index);
  if (type !== undefined && (typeof type !== 'string' || !PHONE_TYPES.has(type))) {
    return new PutRejection(`${where}.metadata.type must be one of ${[...PHONE_TYPES].join(', ')}`, index);
  }
  if (!isPlainObject(data)) return new PutRejection(`${where}.data must be an object`, index);
  const seconds = toSeconds(writeTs);
  const fullType = typeof type === 'string' ? type : defaultType(key);
  const dataTs = data['ts'];
  // Copied only when something changes, so that an unchanged object can be published as the text the phone sent.
  const convertedData =
    typeof dataTs === 'number' && Number.isFinite(dataTs) && dataTs >= MILLISECONDS_THRESHOLD
      ? { ...data, ts: toSeconds(dataTs) }
      : data;
  const sameMetadata = seconds === writeTs && type === fullType;
  return {
    key,
    type: fullType,
    writeTs: seconds,
    platform: typeof platform === 'string' ? platform : null,
    metadata: sameMetadata ? metadata : { ...metadata, write_ts: seconds, type: fullType },
    data: convertedData,
  };
}

/**
 * Validates a whole `phone_to_server` list. All or nothing: one bad envelope rejects the request, so a client
 * never has to guess which part was stored. Payloads are not judged here; the converter does that and sends
 * what it cannot convert to the error timeseries.
 */
export function acceptPutEntries(list: unknown, maxEntries: number): UsercacheEntry[] | PutRejection {
  if (!Array.isArray(list)) return new PutRejection('phone_to_server must be a list of entries', null);
  if (list.length > maxEntries) {
    return new PutRejection(`phone_to_server holds ${list.length} entries; at most ${maxEntries} per call`, null);
  }
  const accepted: UsercacheEntry[] = [];
  for (let i = 0; i < list.length; i += 1) {
    const result = checkEntry(list[i], i);
    if (result instanceof PutRejection) return result;
    accepted.push(result);
  }
  return accepted;
}

/**
 * The records to publish, each entry serialized once here so that an entry too large to carry refuses the whole
 * put (naming it) before any of it reaches Kafka: a put refused half-way would be retried by the phone for ever.
 */
export function toRecordsWithin(
  userId: string,
  entries: readonly UsercacheEntry[],
  receivedTs: number,
  maxEntryBytes = MAX_ENTRY_BYTES,
): UsercacheRecord[] | PutRejection {
  const records: UsercacheRecord[] = [];
  for (let i = 0; i < entries.length; i += 1) {
    const record = toUsercacheRecord(userId, entries[i]!, receivedTs);
    const tooLarge = sizeRejection(record, i, maxEntryBytes);
    if (tooLarge) return tooLarge;
    records.push(record);
  }
  return records;
}

/** The refusal of a record too large to carry, or null. */
export function sizeRejection(record: UsercacheRecord, index: number, maxEntryBytes: number): PutRejection | null {
  // Length in UTF-16 units bounds the UTF-8 size from below; count bytes only when it could matter.
  const chars = record.metadata_json.length + record.data_json.length;
  if (chars * 3 <= maxEntryBytes) return null;
  const bytes = Buffer.byteLength(record.metadata_json) + Buffer.byteLength(record.data_json);
  if (bytes <= maxEntryBytes) return null;
  return new PutRejection(
    `phone_to_server[${index}] is ${bytes} bytes; an entry may be at most ${maxEntryBytes} bytes`,
    index,
    true,
  );
}
