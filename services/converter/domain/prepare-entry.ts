import { MAX_CONVERTED_ENTRY_BYTES, type UsercacheEntry, type UsercacheRecord } from '../../../shared/events/index.js';
import { bsonUuid } from '../../../shared/ids/entry-identity.js';
import type { StoredEntry } from '../../../shared/timeseries/index.js';
import type { Conversion } from './convert-entry.js';

/**
 * A converted entry: its timeseries row, and `data.start_ts` when it has one (labels, survey answers, notes), which
 * its notice on the timeseries topic carries so the trip builder never reads the document to route it.
 */
export type Prepared =
  | {
      ok: true;
      entry: StoredEntry;
      startTs: number | null;
      /** The phone's time zone (`metadata.time_zone`), which places the entry in the phone's local day. */
      timeZone: string | null;
    }
  | { ok: false; reason: string };

export interface PrepareRules {
  /** The conversion rules (convert-entry.ts, or a fixed version of them). */
  convert(entry: UsercacheEntry): Conversion;
  /** The stable `_id.$oid` of an entry's identity (shared/ids/entry-identity.ts entryObjectId). */
  objectId(userId: string, type: string, key: string, writeTs: number): string;
}

const describe = (err: unknown) => (err instanceof Error ? err.message : String(err));

function parseObject(json: string, field: string): Record<string, unknown> | string {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    return `${field} is not JSON: ${describe(err)}`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${field} is not a JSON object`;
  return value as Record<string, unknown>;
}

/**
 * Everything between a decoded usercache record and the row the timeseries stores, as one step that never throws:
 * parsing, the conversion rules, serialising, and the size bound. Whatever goes wrong here is a property of the
 * entry, so it comes back as a reason for the error timeseries; thrown, it would make kafkajs retry the batch for
 * ever. Conversion can grow an entry past what the pipeline carries (numbers printed in full, fields added), so
 * the bound is checked on the result, not on the input.
 */
export function prepareEntry(record: UsercacheRecord, rules: PrepareRules): Prepared {
  const metadata = parseObject(record.metadata_json, 'metadata');
  if (typeof metadata === 'string') return { ok: false, reason: metadata };
  const data = parseObject(record.data_json, 'data');
  if (typeof data === 'string') return { ok: false, reason: data };
  let result: Conversion;
  try {
    result = rules.convert({
      key: record.key,
      type: record.type,
      writeTs: record.write_ts,
      platform: record.platform,
      metadata,
      data,
    });
  } catch (err) {
    // The rules never throw by contract; a bug in them is fixed by a new version and a replay of the dead letter.
    return { ok: false, reason: `conversion threw: ${describe(err)}` };
  }
  if (!result.ok) return result;
  const e = result.entry;
  try {
    const oid = rules.objectId(record.user_id, e.type, e.key, e.writeTs);
    const entryJson = JSON.stringify({
      _id: { $oid: oid },
      user_id: bsonUuid(record.user_id),
      metadata: e.metadata,
      data: e.data,
    });
    const bytes = Buffer.byteLength(entryJson, 'utf8');
    if (bytes > MAX_CONVERTED_ENTRY_BYTES)
      return {
        ok: false,
        reason: `converted entry is ${bytes} bytes, more than the ${MAX_CONVERTED_ENTRY_BYTES} bytes the pipeline carries`,
      };
    const startTs = e.data['start_ts'];
    return {
      ok: true,
      entry: { userId: record.user_id, key: e.key, type: e.type, writeTs: e.writeTs, dataTs: e.dataTs, oid, entryJson },
      startTs: typeof startTs === 'number' && Number.isFinite(startTs) ? startTs : null,
      timeZone: typeof e.metadata['time_zone'] === 'string' ? e.metadata['time_zone'] : null,
    };
  } catch (err) {
    return { ok: false, reason: `converted entry cannot be serialised: ${describe(err)}` };
  }
}
