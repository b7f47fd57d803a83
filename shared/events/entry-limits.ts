/**
 * The largest converted entry the pipeline carries: the UTF-8 bytes of its stored document (`StoredEntry.entryJson`,
 * `{_id, user_id, metadata, data}`). The converter dead-letters a bigger one, since conversion can grow an entry
 * (numbers re-printed in full, fields added). Why 2 MiB:
 * - the timeseries topic takes at most 4 MiB per message (deploy/provision/topics.ts), and the notice of a person's
 *   input carries the converted entry whole (shared/events/timeseries-record.ts) with a few hundred bytes around it;
 * - Cassandra rejects a mutation over half its commit-log segment (32 MiB locally: 16 MiB) and warns on batches
 *   over 256 KiB: a 2 MiB row always fits alone in a batch, and byte-sized batches group the small ones.
 * The gateway caps each entry it accepts below this, leaving room for what conversion adds.
 */
export const MAX_CONVERTED_ENTRY_BYTES = 2 * 1024 * 1024;
