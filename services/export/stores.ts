/**
 * What the export needs from storage. The Cassandra implementation is in ./store/.
 */
import type { DayQuality } from '../../shared/quality/day-quality.js';
import type { CompositeTrip } from './domain/composite-trip.js';

/**
 * What an export reads: a user's raw entries and composite trips, streamed in order, and the completeness of their
 * days. Only its implementation talks to Cassandra (through the tables' owner modules), so everything else can be
 * fed arrays.
 */
export interface ExportSources {
  /**
   * The raw timeseries entries (JSON text, e-mission's `{_id, user_id, metadata, data}`) written on the UTC days
   * of `fromTs` to `toTs`: partitions are whole days, and exports ask for whole days, so the bounds are taken as
   * their days. In (day, key, write time) order.
   */
  rawEntries(userId: string, fromTs: number, toTs: number): AsyncIterable<string>;
  /** The composite trips (untracked periods included) whose `data.end_ts` is in [fromTs, toTs], in end order. */
  compositeTrips(userId: string, fromTs: number, toTs: number): AsyncIterable<CompositeTrip>;
  /** The completeness of the user's local days from `fromDate` to `toDate` (YYYY-MM-DD, both included). */
  dayQuality(userId: string, fromDate: string, toDate: string): Promise<DayQuality[]>;
}
