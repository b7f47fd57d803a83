import pLimit from 'p-limit';
import { LRUCache } from 'lru-cache';
import { State } from '../../../shared/events/index.js';
import type { Logger } from '../../../shared/logger/index.js';
import type { ParticipantActivity, User } from '../../../shared/tables/index.js';
import {
  ParticipantSnapshot,
  type ParticipantRow,
  type ParticipantsRequest,
  type SearchOptions,
} from './query-participants.js';

export interface ParticipantIndexDeps {
  /** Every registered user (users_by_uuid), streamed. */
  users: () => AsyncIterable<User>;
  /** Every participant_activity row, streamed. */
  activity: () => AsyncIterable<ParticipantActivity>;
  /** Dead letters per user (the dead-letter tally's, bounded). */
  errorsByUser: () => Promise<ReadonlyMap<string, number>>;
  /** The user's profile document (`/profile/update` fields: client_app_version, curr_platform…). */
  profile: (userId: string) => Promise<Record<string, unknown> | undefined>;
  /** The program a token names (`nrelop_<program>_…`); undefined: none (the implicit program). */
  programOf: (token: string) => string | undefined;
  logger: Logger;
  refreshSeconds: number;
  now?: () => number;
}

export interface ParticipantIndex {
  start(): Promise<void>;
  stop(): void;
  page(request: ParticipantsRequest, options?: SearchOptions): Promise<ReturnType<ParticipantSnapshot['page']>>;
  /** The full row (token unmasked) of one participant, if the index knows them. */
  get(userId: string): ParticipantRow | undefined;
  /** Every participant's uuid, as of the last refresh. */
  all(): string[];
  /** Every participant's row (tokens in full) and when they were read: what the radar's rules look at. */
  snapshot(): { rows: readonly ParticipantRow[]; asOf: number };
  refresh(): Promise<void>;
}

const seconds = (d: Date | null | undefined) => (d instanceof Date ? d.getTime() / 1000 : null);
const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);

/**
 * Every participant in memory (about 300 bytes each: 30 MB at 100,000), rebuilt from three scans every
 * `refreshSeconds` (or, when a refresh takes long, five times its duration), never per request: a page is a slice of
 * a sorted array, so the list stays fast however many participants there are. Between refreshes it is up to that
 * old, which the page shows (`asOf`). Only the rows of the page asked for read their profile (app version), cached.
 */
export function createParticipantIndex(deps: ParticipantIndexDeps): ParticipantIndex {
  const now = deps.now ?? (() => Date.now() / 1000);
  let snapshot = new ParticipantSnapshot([], 0);
  let byId = new Map<string, ParticipantRow>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<void> | undefined;
  const profiles = new LRUCache<string, { version: string | null; platform: string | null }>({
    max: 10_000,
    ttl: 5 * 60_000,
  });
  const profileReads = pLimit(16);

  async function rebuild(): Promise<void> {
    const started = Date.now();
    const activity = new Map<string, ParticipantActivity>();
    for await (const a of deps.activity()) activity.set(a.userId, a);
    const errors = await deps.errorsByUser();
    const rows: ParticipantRow[] = [];
    for await (const u of deps.users()) {
      const a = activity.get(u.uuid);
      rows.push({
        userId: u.uuid,
        token: u.userEmail,
        program: deps.programOf(u.userEmail) ?? null,
        created: seconds(u.createTs),
        firstPush: a?.firstPushTs ?? null,
        lastPush: a?.lastPushTs ?? null,
        lastTrip: a?.lastTripTs ?? null,
        lastTripLocal: a?.lastTripLocal ?? null,
        lastData: a?.lastDataTs ?? null,
        lastLocation: a?.lastLocationTs ?? null,
        trackingOffSince: a?.lastState === State.TRACKING_STOPPED ? (a.lastStateTs ?? null) : null,
        lastLabel: a?.lastLabelTs ?? null,
        trips: a?.trips ?? 0,
        labelledPct: a && a.trips > 0 ? Math.round((1000 * a.labelledTrips) / a.trips) / 10 : null,
        errors: errors.get(u.uuid) ?? 0,
        platform: a?.platform ?? null,
        appVersion: null,
      });
    }
    snapshot = new ParticipantSnapshot(rows, now());
    byId = new Map(rows.map((r) => [r.userId, r]));
    deps.logger.info('Participant index refreshed', { participants: rows.length, ms: Date.now() - started });
  }

  const refresh = () =>
    (running ??= rebuild().finally(() => {
      running = undefined;
    }));

  function schedule(lastMs: number) {
    if (stopped) return;
    const wait = Math.max(deps.refreshSeconds * 1000, 5 * lastMs);
    timer = setTimeout(() => {
      const started = Date.now();
      refresh()
        .catch((err: unknown) => deps.logger.error('Participant index refresh failed', { error: String(err) }))
        .finally(() => schedule(Date.now() - started));
    }, wait);
    timer.unref();
  }

  async function withProfile(row: ParticipantRow): Promise<ParticipantRow> {
    let p = profiles.get(row.userId);
    if (!p) {
      const doc = await profileReads(() => deps.profile(row.userId));
      p = { version: text(doc?.['client_app_version']), platform: text(doc?.['curr_platform']) };
      profiles.set(row.userId, p);
    }
    return { ...row, appVersion: p.version, platform: row.platform ?? p.platform };
  }

  return {
    async start() {
      const started = Date.now();
      await refresh();
      schedule(Date.now() - started);
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
    async page(request, options) {
      const answer = snapshot.page(request, options);
      return { ...answer, rows: await Promise.all(answer.rows.map(withProfile)) };
    },
    get: (userId) => byId.get(userId),
    all: () => [...byId.keys()],
    snapshot: () => ({ rows: snapshot.rows, asOf: snapshot.asOf }),
    refresh,
  };
}
