/**
 * MongoDB Extended JSON as e-mission dumps carry it, made plain enough to compare and push.
 *
 * The same entry reaches us in two spellings: e-mission's own export (pymongo's legacy `json_util`: numbers as
 * JSON numbers, `{"$uuid": "<32 hex>"}`, `{"$date": <ms>}`) and `mongoexport` (`{"$numberDouble": "1.5"}`,
 * `{"$binary": {...}, "subType": "04"}`, `{"$date": "2016-06-15T...Z"}`). Both must come out identical, so an
 * import or a comparison never depends on which tool made the dump: numbers become JS numbers, UUIDs become
 * `{"$uuid": "<lowercase 8-4-4-4-12>"}`, dates become `{"$date": <epoch ms>}`. `$oid` and any other wrapper
 * (non-UUID binaries, regexes, timestamps) are left as they are: both tools already write them the same way.
 */

import { isObjectIdText } from '../../../shared/ids/entry-identity.js';

/** Wrappers of one number. `$numberLong` past 2^53 loses precision: no e-mission field is a 64-bit count. */
const NUMBER_WRAPPERS = ['$numberDouble', '$numberInt', '$numberLong', '$numberDecimal'] as const;
/**
 * BSON binary subtypes holding a UUID: 04 is the standard one; 03 the legacy one, which pymongo's default
 * `pythonLegacy` representation (the one e-mission uses) writes as the UUID's bytes in order.
 */
const UUID_SUBTYPES: ReadonlySet<string> = new Set(['3', '03', '4', '04']);
const UUID_BYTES = 16;
const HEX32 = /^[0-9a-f]{32}$/;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `abc...` (32 hex, any case, dashes and braces optional) as `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, else undefined. */
export function canonicalUuid(text: string): string | undefined {
  const hex = text
    .replace(/^\{|\}$/g, '')
    .replaceAll('-', '')
    .toLowerCase();
  if (!HEX32.test(hex)) return undefined;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Strict base64 (standard alphabet, padded): Buffer would silently drop stray characters and yield other bytes. */
function base64Bytes(text: string): Uint8Array | undefined {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  return Buffer.from(text, 'base64');
}

function uuidFromBinary(base64: unknown, subType: unknown): string | undefined {
  if (typeof base64 !== 'string' || typeof subType !== 'string' || !UUID_SUBTYPES.has(subType.toLowerCase())) {
    return undefined;
  }
  const bytes = base64Bytes(base64);
  if (!bytes || bytes.length !== UUID_BYTES) return undefined;
  return canonicalUuid(Buffer.from(bytes).toString('hex'));
}

/**
 * The UUID an Extended JSON value spells, in any of the forms dumps use: a plain string, `{"$uuid": ...}` (with or
 * without dashes), `{"$binary": {"base64", "subType": "03"|"04"}}` (v2) or `{"$binary": "...", "$type": "03"|"04"}`
 * (v1, older mongoexport). Undefined when the value is none of these: the caller decides whether that is an error.
 */
export function uuidFromExtendedJson(value: unknown): string | undefined {
  if (typeof value === 'string') return canonicalUuid(value);
  if (!isPlainObject(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length === 1 && typeof value['$uuid'] === 'string') return canonicalUuid(value['$uuid']);
  const binary = value['$binary'];
  if (keys.length === 1 && isPlainObject(binary)) return uuidFromBinary(binary['base64'], binary['subType']);
  if (keys.length === 2 && typeof binary === 'string') return uuidFromBinary(binary, value['$type']);
  return undefined;
}

/** `{"$oid": "..."}` or a plain string as the ObjectId's 24 lowercase hex digits, else undefined. */
export function objectIdFromExtendedJson(value: unknown): string | undefined {
  const text = isPlainObject(value) && Object.keys(value).length === 1 ? value['$oid'] : value;
  if (typeof text !== 'string' || !isObjectIdText(text)) return undefined;
  return text.toLowerCase();
}

/** The number a `{"$numberX": "..."}` wrapper holds; undefined when the object is not one (or its text is no number). */
function wrappedNumber(value: Record<string, unknown>, keys: string[]): number | undefined {
  if (keys.length !== 1) return undefined;
  const wrapper = NUMBER_WRAPPERS.find((w) => w === keys[0]);
  if (wrapper === undefined) return undefined;
  const text = value[wrapper];
  if (typeof text !== 'string') return undefined;
  // Number('') is 0 and Number(' 1 ') is 1: neither is a number's Extended JSON spelling.
  if (text.trim() !== text || text === '') return undefined;
  const n = Number(text);
  return Number.isNaN(n) && text !== 'NaN' ? undefined : n;
}

/** Milliseconds since 1970 from `$date`'s three spellings: a number, `{"$numberLong": ...}` or an ISO 8601 string. */
function dateMillis(inner: unknown): number | undefined {
  const value = isPlainObject(inner) ? normaliseExtendedJson(inner) : inner;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * `value` with every Extended JSON number, UUID and date in the one spelling described above, recursively.
 * A new value: the input is not changed. Objects are rebuilt with own data properties only, so a key named
 * `__proto__` stays a key.
 */
export function normaliseExtendedJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normaliseExtendedJson);
  if (!isPlainObject(value)) return value;
  const keys = Object.keys(value);
  const n = wrappedNumber(value, keys);
  if (n !== undefined) return n;
  if (Object.hasOwn(value, '$uuid') || Object.hasOwn(value, '$binary')) {
    const uuid = uuidFromExtendedJson(value);
    if (uuid !== undefined) return { $uuid: uuid };
  }
  if (keys.length === 1 && keys[0] === '$date') {
    const ms = dateMillis(value['$date']);
    if (ms !== undefined) return { $date: ms };
  }
  return Object.fromEntries(keys.map((k) => [k, normaliseExtendedJson(value[k])]));
}

/** A plain object after normalisation, for callers that need `metadata`/`data` as records. */
export function normaliseRecord(value: Record<string, unknown>): Record<string, unknown> {
  return normaliseExtendedJson(value) as Record<string, unknown>;
}
