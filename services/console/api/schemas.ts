import { z } from 'zod';

/*
 * The console's JSON API: every request and answer shape, once. The routes validate requests with these schemas and
 * /admin/openapi.json is generated from them (openapi.ts), so the documentation cannot drift from what is checked.
 * Timestamps are Unix seconds (as in e-mission's entries); dates are local YYYY-MM-DD.
 */

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date as YYYY-MM-DD');
const userId = z.uuid();

export const ErrorAnswer = z
  .object({ error: z.object({ code: z.string(), message: z.string() }).loose() })
  .meta({ id: 'ErrorAnswer' });

const programName = z.string().regex(/^[A-Za-z0-9-]{1,64}$/, 'letters, digits and "-" only, at most 64');

export const Me = z
  .object({
    email: z.string(),
    role: z.enum(['reader', 'operator']),
    /** A program's admin: the programs they see and act in. Null: the whole deployment. */
    programs: z.array(z.string()).nullable(),
    /** Echoed in the `x-csrf-token` header of every state-changing request. */
    csrfToken: z.string(),
    tileUrl: z.string().meta({ description: 'Leaflet tile URL template; empty: no base map' }),
  })
  .meta({ id: 'Me' });

export const participantSortKeys = [
  'token',
  'created',
  'firstPush',
  'lastPush',
  'lastTrip',
  'trips',
  'labelledPct',
  'errors',
] as const;

export const ParticipantsQuery = z.object({
  page: z.coerce.number().int().min(0).max(1_000_000).default(0),
  size: z.coerce.number().int().min(1).max(200).default(50),
  sort: z.enum(participantSortKeys).default('lastPush'),
  dir: z.enum(['asc', 'desc']).default('desc'),
  q: z.string().max(200).default('').meta({ description: 'substring of the token or the uuid' }),
});

export const Participant = z
  .object({
    userId,
    /** Masked (first 4 and last 2 characters) unless revealed with POST .../reveal-token. */
    token: z.string(),
    /** The program the token names (`nrelop_<program>_…`); null: a token outside that grammar. */
    program: z.string().nullable(),
    created: z.number().nullable(),
    firstPush: z.number().nullable(),
    lastPush: z.number().nullable(),
    lastTrip: z.number().nullable(),
    /** The last trip's end in the trip's own local time, ISO 8601 with its offset: its day is the day page's. */
    lastTripLocal: z.string().nullable(),
    /** The newest entry the phone sensed, of any kind, and the newest location (their `data.ts`). */
    lastData: z.number().nullable(),
    lastLocation: z.number().nullable(),
    /** When the phone's tracking turned off (its newest transition reached TRACKING_STOPPED); null: it is on. */
    trackingOffSince: z.number().nullable(),
    /** When the participant last labelled a trip, answered a survey or wrote a note (Unix seconds); null: never. */
    lastLabel: z.number().nullable(),
    trips: z.number().int(),
    labelledPct: z.number().nullable(),
    errors: z.number().int(),
    platform: z.string().nullable(),
    appVersion: z.string().nullable(),
  })
  .meta({ id: 'Participant' });

export const ParticipantsPage = z
  .object({
    total: z.number().int(),
    page: z.number().int(),
    size: z.number().int(),
    /** When the in-memory participant index was last refreshed from Cassandra. */
    asOf: z.number(),
    rows: z.array(Participant),
  })
  .meta({ id: 'ParticipantsPage' });

export const RevealedToken = z.object({ token: z.string() }).meta({ id: 'RevealedToken' });

export const DayParams = z.object({ userId, date: isoDate });

/** [longitude, latitude] as in GeoJSON. */
const lonLat = z.tuple([z.number(), z.number()]);

export const DaySection = z.object({
  sectionId: z.string(),
  mode: z.string(),
  startTs: z.number(),
  endTs: z.number(),
  distance: z.number(),
  coordinates: z.array(lonLat),
});

export const DayTrip = z
  .object({
    tripId: z.string(),
    startTs: z.number(),
    endTs: z.number(),
    startFmtTime: z.string(),
    endFmtTime: z.string(),
    distance: z.number(),
    duration: z.number(),
    modes: z.array(z.string()),
    /** user_input of the composite trip: `mode_confirm` → `walk`, … */
    labels: z.record(z.string(), z.string()),
    notes: z.array(z.string()),
    startPlace: lonLat.nullable(),
    endPlace: lonLat.nullable(),
    sections: z.array(DaySection),
    stops: z.array(lonLat),
    untracked: z.boolean(),
  })
  .meta({ id: 'DayTrip' });

export const Day = z
  .object({
    userId,
    date: isoDate,
    timeZone: z.string().nullable(),
    previousDate: isoDate.nullable(),
    nextDate: isoDate.nullable(),
    trips: z.array(DayTrip),
  })
  .meta({ id: 'Day' });

export const SectionPointsQuery = z.object({
  start: z.coerce.number(),
  end: z.coerce.number(),
});

export const SectionPoints = z
  .object({
    points: z.array(z.object({ ts: z.number(), lon: z.number(), lat: z.number(), accuracy: z.number().nullable() })),
    truncated: z.boolean(),
  })
  .meta({ id: 'SectionPoints' });

export const PartitionProgress = z.object({
  partition: z.number().int(),
  committed: z.number(),
  end: z.number(),
  lag: z.number(),
  /** When the console last saw the committed offset move (it samples every few seconds); null: not since it started. */
  lastCommitAt: z.number().nullable(),
  /** Records per second committed over the last minutes. */
  rate: z.number(),
});

export const GroupProgress = z.object({
  group: z.string(),
  topic: z.string(),
  lag: z.number(),
  rate: z.number(),
  /** Lag and no commit for `stalled_minutes`. */
  stalled: z.boolean(),
  partitions: z.array(PartitionProgress),
});

export const Pipeline = z
  .object({
    sampledAt: z.number(),
    stalledMinutes: z.number(),
    groups: z.array(GroupProgress),
    behind: z.object({
      thresholdHours: z.number(),
      count: z.number().int(),
      users: z.array(z.object({ userId, token: z.string(), resumeFromTs: z.number(), lastPush: z.number() })),
    }),
  })
  .meta({ id: 'Pipeline' });

export const DeadLetterSummary = z
  .object({
    total: z.number().int(),
    /** The count stopped at the scan's bound: there are at least `total`. */
    truncated: z.boolean(),
    groups: z.array(z.object({ key: z.string(), reason: z.string(), count: z.number().int() })),
  })
  .meta({ id: 'DeadLetterSummary' });

export const DeadLettersQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  key: z.string().max(200).optional(),
  reason: z.string().max(500).optional(),
});

export const DeadLetterRef = z.object({ userId, key: z.string(), writeTs: z.number(), type: z.string() });

export const DeadLetter = DeadLetterRef.extend({
  reason: z.string(),
  failedTs: z.number().nullable(),
  entry: z.string().meta({ description: 'the entry as pushed (metadata and data), JSON text' }),
  token: z.string(),
}).meta({ id: 'DeadLetter' });

export const DeadLetterList = z.object({ rows: z.array(DeadLetter) }).meta({ id: 'DeadLetterList' });

/**
 * Which of two fields says who a bulk action is for: exactly one, so "all" is always said, never inferred from a
 * field left out (a client that lost its selection must not replay or rebuild everything).
 */
const exactlyOne =
  <T extends Record<string, unknown>>(a: keyof T & string, b: keyof T & string) =>
  (value: T, ctx: z.core.$RefinementCtx<T>) => {
    if ((value[a] === undefined) === (value[b] === undefined))
      ctx.addIssue({ code: 'custom', path: [a], message: `give exactly one of ${a} and ${b}` });
  };

export const ReplayRequest = z
  .object({
    /** The dead letters to replay. */
    selection: z.array(DeadLetterRef).min(1).max(10_000).optional(),
    /** `true`: every dead letter. */
    all: z.literal(true).optional(),
  })
  .strict()
  .superRefine(exactlyOne('selection', 'all'))
  .meta({ id: 'ReplayRequest' });

export const TopicReplayRequest = z
  .object({
    since: z.string().min(1).meta({ description: 'YYYY-MM-DD (UTC) or an offset' }),
    key: z.string().max(200).optional(),
    reason: z.string().max(500).optional(),
    dryRun: z.boolean().default(true),
  })
  .meta({ id: 'TopicReplayRequest' });

export const ResetRequest = z
  .object({
    /** One user. */
    userId: userId.optional(),
    /** `true`: every participant. */
    everyone: z.literal(true).optional(),
    from: isoDate.optional(),
    dryRun: z.boolean().default(true),
  })
  .strict()
  .superRefine(exactlyOne('userId', 'everyone'))
  .meta({ id: 'ResetRequest' });

export const ResetPlan = z
  .object({
    scope: z.enum(['user', 'all']),
    from: z.string(),
    /** What will be rebuilt: a user's trips, or each consumer group partition's new offset. */
    lines: z.array(z.string()),
  })
  .meta({ id: 'ResetPlan' });

export const Job = z
  .object({
    jobId: z.string(),
    kind: z.enum(['replay', 'topic-replay', 'reset']),
    state: z.enum(['running', 'done', 'failed']),
    startedAt: z.number(),
    /** Units done and (when known) in all: entries replayed, days rebuilt. */
    done: z.number().int(),
    total: z.number().int().nullable(),
    lines: z.array(z.string()),
  })
  .meta({ id: 'Job' });

export const JobParams = z.object({ jobId: z.string().max(100) });

export const SummaryQuery = z.object({ days: z.coerce.number().int().min(1).max(366).default(30) });

export const Summary = z
  .object({
    from: isoDate,
    to: isoDate,
    perDay: z.array(z.object({ date: isoDate, trips: z.number().int(), activeUsers: z.number().int() })),
    distanceByMode: z.record(z.string(), z.number()),
    distanceByLabel: z.record(z.string(), z.number()),
  })
  .meta({ id: 'Summary' });

export const TokenRequest = z
  .object({
    count: z.number().int().min(1).max(500).default(1),
    /** e-mission's shape: nrelop_<program>_<subgroup>_<random>. */
    program: programName,
    subgroup: programName.default('default'),
    /** Testers' tokens (`nrelop_<program>_<subgroup>_test_<random>`): left out of the program's own figures. */
    tester: z.boolean().default(false),
  })
  .meta({ id: 'TokenRequest' });

export const CreatedTokens = z
  .object({ tokens: z.array(z.object({ token: z.string(), qrSvg: z.string() })) })
  .meta({ id: 'CreatedTokens' });

/**
 * A list of the Tokens page (refused, revoked): a row a token, with what is known of it. Readers get each token
 * masked, so every such list keeps it in the same `token` field.
 */
const tokenList = <Fields extends z.ZodRawShape>(fields: Fields) =>
  z.object({ rows: z.array(z.object({ token: z.string(), ...fields })) });

export const RefusedTokens = tokenList({
  attempts: z.number().int(),
  firstTs: z.number(),
  lastTs: z.number(),
  reason: z.string(),
}).meta({ id: 'RefusedTokens' });

/** Printable characters only: a token or a reason goes into audit lines and back to other operators' pages. */
const PRINTABLE = /^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+$/u;

export const RevokeRequest = z
  .object({
    /** Whole tokens, exactly as the phones send them (the gateway's longest: 512 characters). */
    tokens: z.array(z.string().min(1).max(512).regex(PRINTABLE, 'printable characters only')).min(1).max(500),
    /** Why: kept with each revocation and shown on the Tokens page. */
    reason: z.string().trim().min(1).max(500).regex(PRINTABLE, 'printable characters only'),
  })
  .meta({ id: 'RevokeRequest' });

export const RevokeParticipantRequest = RevokeRequest.pick({ reason: true }).meta({ id: 'RevokeParticipantRequest' });

export const Revoked = z
  .object({
    /** Tokens this call revoked. */
    revoked: z.number().int(),
    /** Tokens that were revoked already (their first revocation stands). */
    alreadyRevoked: z.number().int(),
  })
  .meta({ id: 'Revoked' });

export const RevokedTokens = tokenList({ revokedTs: z.number(), revokedBy: z.string(), reason: z.string() }).meta({
  id: 'RevokedTokens',
});

export const ProgramParams = z.object({ program: programName });

export const ProgramVersion = z
  .object({
    program: z.string(),
    /** The document's `version`: phones fetch a configuration whose version is above theirs. */
    version: z.number().int(),
    changedAt: z.number(),
    changedBy: z.string(),
    note: z.string(),
  })
  .meta({ id: 'ProgramVersion' });

export const ProgramList = z.object({ programs: z.array(ProgramVersion) }).meta({ id: 'ProgramList' });

export const ProgramDetail = ProgramVersion.extend({
  /** The current configuration document, JSON text as saved. */
  document: z.string(),
  /** Every version, newest first (the last 100). */
  history: z.array(ProgramVersion),
}).meta({ id: 'ProgramDetail' });

/** A document is checked by the programs' own rules (at most 512 KiB); this bounds the request. */
const documentText = z.string().min(1).max(1_000_000);

export const ProgramVersionRequest = z
  .object({
    /** The configuration (an op-deployment-configs document), JSON text; its `version` must be above the current. */
    document: documentText,
    /** Label options (what a `label_options` URL points at), JSON text, inlined into the document. */
    labelOptions: documentText.optional(),
    /** Why, for the history. */
    note: z.string().max(500).optional(),
  })
  .meta({ id: 'ProgramVersionRequest' });

export const ProgramCreateRequest = ProgramVersionRequest.extend({ program: programName }).meta({
  id: 'ProgramCreateRequest',
});
