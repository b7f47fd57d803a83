import type { ErrorTimeseries } from '../timeseries/index.js';

/*
 * The operators' actions on the pipeline, as one face: the console's pages and the command line call these, the
 * converter (replays) and the trip builder (resets) implement them, and a composition root (services/console/
 * compose.ts, the CLI) joins the two. The requests and reports are declared here, once, for all of them.
 */

/** Where a topic replay starts: a UTC date (its midnight) or a Kafka offset. */
export type ReplaySince = { date: string } | { offset: number };

/** `since` as an operator typed it: YYYY-MM-DD (UTC midnight) or a non-negative offset; undefined: neither. */
export function parseSince(text: string): ReplaySince | undefined {
  if (/^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(Date.parse(`${text}T00:00:00Z`))) return { date: text };
  if (/^\d{1,15}$/.test(text)) return { offset: Number(text) };
  return undefined;
}

/** What a replay of the error timeseries' letters did. */
export interface ReplayReport {
  /** Per metadata.key: how many were replayed, moved to the timeseries, and still failing. */
  byKey: Record<string, { replayed: number; moved: number; stillFailing: number }>;
  /** Dead letters that cannot be replayed (see isReplayable): undecodable, failed trip rebuilds, no payload. */
  notReplayable: number;
  /** False when the converter did not catch up within the wait; counts are then provisional. */
  caughtUp: boolean;
}

export interface TopicReplayOptions {
  since: ReplaySince;
  /** Only letters of this metadata.key (exact). */
  key?: string;
  /** Only letters whose reason contains this text (case-insensitive). */
  reason?: string;
  /** Count what matches, publish nothing. */
  dryRun?: boolean;
}

export interface TopicReplayKeyCounts {
  matched: number;
  /** Sent back to the usercache topic (0 in a dry run). */
  replayed: number;
  notReplayable: number;
  /** Matched letters per reason (clipped, a bounded number of distinct reasons, the rest counted together). */
  reasons: Record<string, number>;
}

/** What a replay of the dead-letter topic read, matched and sent. */
export interface TopicReplayReport {
  dryRun: boolean;
  /** Records of the error-timeseries topic read between the start and the end offsets captured at start. */
  scanned: number;
  /** Records that pass the key and reason filters (duplicates included). */
  matched: number;
  /** Matched letters sent back to the usercache topic; 0 in a dry run (see `replayable`). */
  replayed: number;
  /** Matched letters that hold a phone entry, each entry once: what a real run sends. */
  replayable: number;
  /** Matched letters with no entry to replay (undecodable, failed trip rebuild, stored without payload). */
  notReplayable: number;
  /** Matched letters of an entry already seen in this scan (it failed more than once): sent once. */
  duplicates: number;
  /** Per metadata.key (a bounded number of distinct keys, the rest counted together). */
  byKey: Record<string, TopicReplayKeyCounts>;
}

/** What a rebuild of one user's trips wrote. */
export interface RebuildResult {
  trips: number;
  /** The trip-local dates rewritten. */
  days: string[];
}

/** What a reset of one user's trips would replace. */
export interface UserResetPlan {
  /** Where the rebuild starts (Unix seconds; -Infinity: the start of the data). */
  fromTs: number;
  /** Stored trips the reset replaces. */
  tripsReplaced: number;
}

export interface OperatorActions {
  /**
   * Sends the letters `errors` yields back through the converter, waits for it to catch up, and reports what moved
   * to the timeseries and what still fails. `onProgress`: letters sent so far.
   */
  replayDeadLetters(errors: ErrorTimeseries, onProgress?: (sent: number) => void): Promise<ReplayReport>;
  /** Replays the letters of the dead-letter topic from `since` on. `onProgress`: records scanned, of all. */
  replayDeadLetterTopic(
    options: TopicReplayOptions,
    onProgress?: (done: number, total: number) => void,
  ): Promise<TopicReplayReport>;
  /** What a rebuild of the user's trips from `fromTs` (the start when undefined) replaces; nothing is written. */
  planUserReset(userId: string, fromTs: number | undefined): Promise<UserResetPlan>;
  /** Rebuilds the user's trips, diary, documents and metrics from the window `fromTs` falls in. */
  resetUserTrips(userId: string, fromTs: number | undefined): Promise<RebuildResult>;
}
