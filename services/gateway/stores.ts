/**
 * What the routes need from storage: the ports the gateway's routes read and write through. The Cassandra
 * implementations are in ./store/.
 */
import type { Readable } from 'node:stream';
import type { PipelineProgress, TripCounts, UsercacheDocumentsTable } from '../../shared/tables/index.js';
import type { StoredCompositeText } from './domain/derived-entries.js';
import type { LabelTripFact } from './domain/label-metrics.js';
import type { SectionFact } from './domain/metrics-summary.js';
import type { ProgramDirectory } from '../../shared/programs/program-directory.js';
import type { DeploymentConfig } from '../../shared/programs/domain/deployment-config.js';

export type { ProgramMember } from '../../shared/programs/domain/admit-token.js';
export type { CohortFilter, ProgramCohorts } from '../../shared/programs/program-cohorts.js';

/** How a join page hands out tokens. */
export interface JoinTokens {
  /** Whether the program lets phones make their own tokens; otherwise it admits only issued ones. */
  selfMade(config: DeploymentConfig): boolean;
  /** A new token of a program and subgroup (a tester's when `tester`), with its QR code: what a join page shows. */
  make(program: string, subgroup: string, tester: boolean): Promise<{ token: string; qrSvg: string }>;
}

/** The programs the deployment serves: which one a token belongs to, what a put answers, their configurations. */
export type ProgramGate = ProgramDirectory;

export type { PipelineProgress, ServerToPhoneDocument, TripCounts } from '../../shared/tables/index.js';

export interface SectionScanOptions {
  /**
   * Rows a scan may read before it is refused: an aggregate reads every user's sections of every day asked, and
   * a large deployment has far more than one request should touch (100,000 users make about a million a day).
   */
  maxSections: number;
  /** Day partitions read at once. @defaultValue 2 */
  concurrency?: number;
}

/** What the trip builder wrote for the phone to read: a day's timeline and the built sections' facts. */
export interface DiaryReader {
  /** The trips of one trip-local date, as getTrips returns them. */
  timeline(userId: string, localDate: string): Promise<unknown[]>;
  /**
   * The stored composite-trip entries whose `data.end_ts` is in [fromEndTs, toEndTs], in end order (or newest
   * first), streamed: the caller stops reading when it has enough.
   */
  composites(
    userId: string,
    fromEndTs: number,
    toEndTs: number,
    options?: { newestFirst?: boolean },
  ): AsyncIterable<StoredCompositeText>;
  /**
   * Hands every section starting in [startTs, endTs], of one user or (null) of everyone, to `visit`, as rows
   * stream in: nothing is collected. Throws a ValidationError naming the limit past `maxSections` rows.
   */
  scanSections(
    userId: string | null,
    startTs: number,
    endTs: number,
    visit: (section: SectionFact) => void,
    options: SectionScanOptions,
  ): Promise<void>;
  /**
   * Hands every user's confirmed-trip row of the label metrics (shared/tables) of the trip-local dates given (YYYY-MM-DD) to
   * `visit`, as rows stream in, a bounded number of day partitions at once. Throws a ValidationError naming the
   * limit past `maxSections` rows (here: trips).
   */
  scanLabelTrips(
    localDates: readonly string[],
    visit: (trip: LabelTripFact) => void,
    options: SectionScanOptions,
  ): Promise<void>;
}

/** What the profile reads of the trip builder's progress and counts. */
export interface PipelineStateReader {
  progress(userId: string): Promise<PipelineProgress>;
  /** The user's trips and labelled trips, summed over the per-day counts the trip builder keeps. */
  tripCounts(userId: string): Promise<TripCounts>;
}

export type { ProfilesTable as ProfileStore } from '../../shared/tables/index.js';

/** A user's own account deletion (services/deletion): every row in every table, and the token. */
export interface AccountDeletion {
  /** Counts of what went (no data), for the answer. */
  delete(userId: string): Promise<{ timeseriesPartitions: number; documents: number; tookMs: number }>;
}

/**
 * A user's own data as a file (services/export): one format, whole UTC days, streamed while the client reads.
 * A few stream at once per gateway, a few more wait; beyond, an OverloadedError (503).
 */
/** A participant's export request as the export service checked it (services/export/phone-exports.ts). */
export interface ExportAsk {
  /** The name the download is saved under, safe in a Content-Disposition header. */
  readonly fileName: string;
}

export interface UserExports {
  /** The request checked before anyone is identified: unknown format 404, bad range 400. */
  ask(format: string, body: { start_date?: unknown; end_date?: unknown }, nowMs: number): ExportAsk;
  /** The export once its turn has come; its slot is held until the body ends or is destroyed. */
  open(userId: string, asked: ExportAsk): Promise<{ contentType: string; body: Readable }>;
}

/** What the gateway reads of the usercache documents the trip builder writes. */
export type DocumentReader = Pick<UsercacheDocumentsTable, 'list' | 'get'>;

/**
 * The label kinds a user may extend with their own labels. The current app sends `mode` and `purpose`
 * (`phone:www/js/App.tsx` CUSTOM_LABEL_KEYS_IN_DATABASE); `replaced_mode` is the third MULTILABEL question and
 * takes the same labels. e-mission accepts any key and stores it as a profile field; Itinera keeps the list closed.
 */
export const CUSTOM_LABEL_KEYS = ['mode', 'purpose', 'replaced_mode'] as const;
export type CustomLabelKey = (typeof CUSTOM_LABEL_KEYS)[number];

export interface LabelChange {
  /** The label a trip was changed from: its frequency drops by one. Null or "" for none. */
  oldLabel: string | null;
  /** The label a trip was changed to: its frequency rises by one and it becomes active. */
  newLabel: string;
  /** Create `newLabel` (with frequency 1) when the user has no such label yet. */
  addIfMissing: boolean;
}

/**
 * One user's custom labels, e-mission's `User.{get,insert,update,delete}UserCustomLabel`
 * (`emission/core/wrapper/user.py`). Every method answers the key's active labels as e-mission lists them: most
 * used first, ties in order of first creation.
 */
export interface CustomLabelStore {
  list(userId: string, key: CustomLabelKey): Promise<string[]>;
  /** Adds the label, or reactivates it (keeping its frequency) if the user deleted it earlier. */
  insert(userId: string, key: CustomLabelKey, label: string): Promise<string[]>;
  /** Records that a trip's label changed from `oldLabel` to `newLabel`. */
  update(userId: string, key: CustomLabelKey, change: LabelChange): Promise<string[]>;
  /** Deactivates the label; a label the user never has is no error (e-mission answers the list unchanged). */
  remove(userId: string, key: CustomLabelKey, label: string): Promise<string[]>;
}
