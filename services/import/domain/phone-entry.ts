import type { EmissionEntry } from './emission-entry.js';

/** An entry as a phone sends it in `phone_to_server` of `/usercache/put`. */
export interface PhoneEntry {
  metadata: Record<string, unknown>;
  data: Record<string, unknown>;
}

/**
 * Key families a phone writes itself. Only these are imported by replaying them through `/usercache/put`: they are
 * the evidence, and Itinera rebuilds everything else from them exactly as it would for a live phone.
 */
const RAW_PHONE_FAMILIES = ['background/', 'statemachine/', 'config/', 'manual/', 'stats/'];

/**
 * True for keys a phone pushes (`background/*`, `statemachine/*`, `config/*`, `manual/*`, `stats/*`); false for
 * e-mission's derived keys (`analysis/*`, `segmentation/*`, `inference/*`, `mode_inference/*`, `metrics/*`) and for
 * anything unknown. Derived entries must not be pushed (Itinera derives its own, and two pipelines' trips for one
 * day would both show), but a comparison reads them.
 */
export function isRawPhoneKey(key: string): boolean {
  return RAW_PHONE_FAMILIES.some((family) => key.startsWith(family) && key.length > family.length);
}

/**
 * Metadata e-mission's server adds when it formats an entry. A phone never sends them, and Itinera's converter
 * computes them again from `write_ts` and `time_zone`; leaving them out keeps the replay byte for byte what a phone
 * would have sent.
 */
const SERVER_FORMATTED_METADATA: ReadonlySet<string> = new Set(['write_local_dt', 'write_fmt_time']);

/**
 * The entry in the form a phone pushes it: `metadata` (key, platform, write_ts, time_zone, type, read_ts, plugin,
 * ...) and `data`, without the dump's `_id` and `user_id` (the user is the request's token, and Itinera gives each
 * stored entry its own id). Shallow copies: `data`'s nested values are shared with `e`.
 */
export function toPhoneEntry(e: EmissionEntry): PhoneEntry {
  const metadata: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e.metadata)) {
    if (!SERVER_FORMATTED_METADATA.has(k) && k !== '_id' && k !== 'user_id') metadata[k] = v;
  }
  return { metadata, data: { ...e.data } };
}
