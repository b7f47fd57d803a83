/**
 * What the converter needs from storage: a writer of converted entries into the timeseries. The Cassandra
 * implementation is in ./store/.
 */
import type { StoredEntry } from '../../shared/timeseries/index.js';

/** An entry Cassandra will never take as it is (too large, rejected as invalid): a dead letter, not a retry. */
export interface RejectedEntry {
  entry: StoredEntry;
  reason: string;
}

export interface TimeseriesWriter {
  /**
   * Upserts entries by identity; resolves once every row is durable, with the entries that can never be stored.
   * Rejects only on an outage (DependencyUnavailableError), which a retry of the same call may get past.
   */
  write(entries: readonly StoredEntry[]): Promise<RejectedEntry[]>;
}
