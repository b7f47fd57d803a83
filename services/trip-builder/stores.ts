/**
 * What the trip builder needs from storage: its trips, diary and progress, and the usercache documents it owns.
 * The Cassandra implementations are in ./store/.
 */
import type { PipelineProgress, UsercacheDocumentsTable } from '../../shared/tables/index.js';
import type { CompositeTripEntry } from './domain/diary/composite-trip.js';
import type { BuiltTrip, ResumePoint } from './domain/timeline/build-trips.js';
import type { StoredTripAnchor } from './domain/timeline/rebuild-window.js';

/** A day's trips in the two shapes the phone apps read (getTrips GeoJSON; composite-trip entries). */
export interface RenderedDay {
  timeline: unknown[];
  composites: CompositeTripEntry[];
}

export interface IndexedTrip extends StoredTripAnchor {
  localDate: string;
  /** The cleaned trip's bounds. */
  startTs: number;
  endTs: number;
}

/** The trip builder's persistence: trips, their index, the diary per day, section metrics and the resume point. */
export interface TripStore {
  resumePoint(userId: string): Promise<ResumePoint | undefined>;
  saveResumePoint(userId: string, resume: ResumePoint): Promise<void>;
  /** The user's trips with raw start ≥ fromTs (all when -Infinity), oldest first. */
  indexFrom(userId: string, fromTs: number): Promise<IndexedTrip[]>;
  /** The last trip that started before `ts`, from the index alone (no trip is read). */
  tripBefore(userId: string, ts: number): Promise<IndexedTrip | undefined>;
  /** The last trip that started before `ts`, and the first that started after. */
  neighbours(userId: string, beforeTs: number, afterTs: number): Promise<{ previous?: BuiltTrip; next?: BuiltTrip }>;
  tripsOfDay(userId: string, localDate: string): Promise<BuiltTrip[]>;
  /** Replaces the trips from `fromTs` on: deletes the old ones (and their metrics rows), writes the new ones. */
  replaceTrips(userId: string, old: readonly IndexedTrip[], fresh: readonly BuiltTrip[]): Promise<void>;
  /**
   * One trip-local date as the phone reads it: getTrips' timeline and the composite-trip entries;
   * an empty timeline deletes the day.
   */
  saveDiaryDay(userId: string, localDate: string, day: RenderedDay): Promise<void>;
  /**
   * The day's composite-trip entries alone, with what is counted from them (`labeled_trips`, the label metrics'
   * rows): what a new label changes, since getTrips' timeline carries no labels. The day's trips are those of its
   * last saveDiaryDay: a relabel never adds or removes a trip.
   */
  relabelDay(userId: string, localDate: string, composites: RenderedDay['composites']): Promise<void>;
  latestTrips(userId: string, limit: number): Promise<IndexedTrip[]>;
  firstTrip(userId: string): Promise<IndexedTrip | undefined>;
  saveProgress(userId: string, progress: PipelineProgress): Promise<void>;
}

/** The server-to-phone documents the trip builder owns in the usercache (`diary/trips-<date>`). */
export type UsercacheDocuments = Pick<UsercacheDocumentsTable, 'keys' | 'put' | 'remove'>;
