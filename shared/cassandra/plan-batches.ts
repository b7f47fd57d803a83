import type { Statement } from './execute.js';

/** A row to write: the partition it lands in (`group`), its estimated size, and whatever it belongs to. */
export interface SizedRow<Owner> {
  group: string;
  statement: Statement;
  bytes: number;
  owner: Owner;
}

/** Rows per unlogged batch: one partition each. */
export const MAX_BATCH_ROWS = 50;
/**
 * Bytes per unlogged batch. Cassandra warns on batches over batch_size_warn_threshold (256 KiB), fails them over
 * batch_size_fail_threshold (4 MiB), and refuses any mutation (a single-partition batch is one) over half a
 * commit-log segment (16 MiB): see deploy/local/cassandra/cassandra.yaml. Seventeen 1 MB entries of one user, key
 * and day were one 17 MB mutation under a rows-only limit. A row bigger than this budget goes in a batch alone.
 */
export const MAX_BATCH_BYTES = 256 * 1024;
/** What a row costs on the wire beyond its values: column framing, statement id, clustering. An estimate. */
const ROW_OVERHEAD_BYTES = 64;

function valueBytes(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (Buffer.isBuffer(value)) return value.length;
  return 16; // numbers, uuids, timestamps: fixed-width
}

/** The estimated size of a row on the wire and in the mutation: its values plus a fixed overhead. */
export function rowBytes(statement: Statement): number {
  const params = Array.isArray(statement.params) ? statement.params : Object.values(statement.params);
  return params.reduce((sum: number, v) => sum + valueBytes(v), ROW_OVERHEAD_BYTES);
}

/**
 * Splits rows into batches of one partition each, in the order the rows came, each at most MAX_BATCH_ROWS rows
 * and MAX_BATCH_BYTES bytes (a single larger row makes a batch of its own).
 */
export function planBatches<Owner>(
  rows: readonly SizedRow<Owner>[],
  limits: { rows: number; bytes: number } = { rows: MAX_BATCH_ROWS, bytes: MAX_BATCH_BYTES },
): SizedRow<Owner>[][] {
  const open = new Map<string, { rows: SizedRow<Owner>[]; bytes: number }>();
  const batches: SizedRow<Owner>[][] = [];
  for (const row of rows) {
    let batch = open.get(row.group);
    if (batch && (batch.rows.length >= limits.rows || batch.bytes + row.bytes > limits.bytes)) batch = undefined;
    if (!batch) {
      batch = { rows: [], bytes: 0 };
      open.set(row.group, batch);
      batches.push(batch.rows);
    }
    batch.rows.push(row);
    batch.bytes += row.bytes;
  }
  return batches;
}
