import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { toUsercacheRecord, type UsercacheEntry, type UsercacheRecord } from '../../shared/events/index.js';

/**
 * The real days as phones push them, for the tests, the benchmark and the soak (which import them from here: test
 * code never imports the benchmark).
 */

export interface PhoneEntry {
  metadata: Record<string, unknown>;
  data: Record<string, unknown>;
}

/**
 * The real days under test/fixtures/emission, as a phone would push them (no _id or user_id), in write order. Entries are
 * already in timeseries form, which the converter validates and keeps: the same work as wire-form entries.
 */
export function loadRealEntries(dataDir: string): PhoneEntry[] {
  const dir = join(dataDir, 'emission-real-days');
  const entries: PhoneEntry[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.json') && !f.includes('ground_truth'))
    .sort()) {
    const day = JSON.parse(readFileSync(join(dir, file), 'utf8')) as (PhoneEntry & Record<string, unknown>)[];
    for (const { metadata, data } of day) entries.push({ metadata, data });
  }
  return entries;
}

/**
 * A batch of `size` entries for one synthetic phone: real entries, shifted by whole weeks per batch and by a
 * millisecond per entry, so every write timestamp is unique (a repeated identity would be stored once and
 * measure less work).
 */
export function makeBatch(real: readonly PhoneEntry[], size: number, batchIndex: number): PhoneEntry[] {
  const shift = batchIndex * 86_400 * 7;
  const batch: PhoneEntry[] = [];
  for (let i = 0; i < size; i += 1) {
    const src = real[i % real.length] as PhoneEntry;
    const lap = Math.floor(i / real.length) * 86_400;
    // + i ms: the real days repeat some (key, type, write_ts) identities, which the pipeline rightly stores once.
    const writeTs = Number(src.metadata['write_ts']) + shift + lap + i / 1000;
    const ts = typeof src.data['ts'] === 'number' ? src.data['ts'] + shift + lap : src.data['ts'];
    batch.push({ metadata: { ...src.metadata, write_ts: writeTs }, data: { ...src.data, ts } });
  }
  return batch;
}

/** A phone entry as the gateway accepts it (envelope read, timestamps already in seconds). */
export function toUsercacheEntry(e: PhoneEntry): UsercacheEntry {
  const m = e.metadata;
  return {
    key: String(m['key']),
    type: String(m['type']),
    writeTs: Number(m['write_ts']),
    platform: String(m['platform']),
    metadata: m,
    data: e.data,
  };
}

/** The usercache record the gateway would publish for a phone entry. */
export function toPhoneRecord(userId: string, e: PhoneEntry): UsercacheRecord {
  return toUsercacheRecord(userId, toUsercacheEntry(e), Date.now() / 1000);
}
