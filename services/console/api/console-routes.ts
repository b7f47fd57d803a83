import type { z } from 'zod';
import { ForbiddenError, NotFoundError } from '../../../shared/errors/index.js';
import { loggableToken } from '../../../shared/ids/token-digest.js';
import type { Logger } from '../../../shared/logger/index.js';
import type { LetterChoice } from '../actions/replay-letters.js';
import type { createUserResets } from '../actions/reset-users.js';
import type { DeadLetterView } from '../dead-letters/dead-letter-view.js';
import type { DayReader } from '../day/day-reader.js';
import type { JobProgress, JobRegistry } from '../jobs/job-registry.js';
import type { ParticipantIndex } from '../participants/participant-index.js';
import { maskedNewestFirst, maskToken } from '../participants/query-participants.js';
import type { ConsolePrograms } from '../programs/console-programs.js';
import type { ParticipantScope } from '../scope/participant-scope.js';
import { describeScope, inScope, type ProgramScope } from '../scope/program-scope.js';
import { parseSinceOrThrow } from '../actions/topic-replay-lines.js';
import { isOperator, who } from './caller.js';
import { radarRoutes } from '../radar/radar-routes.js';
import { alertRoutes, type AlertLog } from '../alerts/alert-routes.js';
import type { DayQualityReader } from '../../../shared/quality/day-quality.js';
import { qualityRoutes } from '../quality/quality-routes.js';
import { programRoutes } from './program-routes.js';
import { route, type ConsoleRoute } from './route-table.js';
import * as s from './schemas.js';

export interface ConsoleApiDeps {
  tileUrl: string;
  participants: ParticipantIndex;
  /** Which participants the caller sees (their programs'). */
  scope: ParticipantScope;
  /** The program a token names (`nrelop_<program>_…`); undefined: none. */
  programOfToken: (token: string) => string | undefined;
  days: DayReader;
  /** How complete each local day of a participant's data is (quality/day-quality.ts). */
  quality: DayQualityReader;
  /** The pipeline; its per-user part limited to the programs of `scope`. */
  pipeline: (scope: ProgramScope) => Promise<z.infer<typeof s.Pipeline>>;
  deadLetters: DeadLetterView;
  replayLetters: (choice: LetterChoice, total: number, p: JobProgress) => Promise<string[]>;
  replayTopic: (request: z.infer<typeof s.TopicReplayRequest>, p: JobProgress) => Promise<string[]>;
  resets: ReturnType<typeof createUserResets>;
  /** The figures of the participants of `scope`. */
  summary: (days: number, scope: ProgramScope) => Promise<z.infer<typeof s.Summary>>;
  tokens: {
    /** Refuses (400) tokens no phone could use: see tokens/issue-tokens.ts. */
    create(request: z.infer<typeof s.TokenRequest>, by: string): Promise<z.infer<typeof s.CreatedTokens>>;
    refused(): Promise<z.infer<typeof s.RefusedTokens>>;
    /** Revokes for good; answers the tokens this call revoked (not those revoked before). */
    revoke(tokens: readonly string[], by: string, reason: string): Promise<string[]>;
    revoked(): Promise<z.infer<typeof s.RevokedTokens>>;
  };
  programs: ConsolePrograms;
  jobs: JobRegistry;
  /** Who did what destructive thing, when: one JSON line per action (no participant data beyond a uuid). */
  audit: Logger;
  /** The alerts of the radar's rules (alerts/): what the last evaluation read. */
  alerts: AlertLog;
}

/** Every endpoint of the console's JSON API (the pages' data, and the operators' actions). */
export function consoleRoutes(d: ConsoleApiDeps): ConsoleRoute[] {
  async function revoke(tokens: readonly string[], reason: string, ctx: Parameters<typeof who>[0], userId?: string) {
    const revoked = await d.tokens.revoke(tokens, who(ctx), reason);
    const alreadyRevoked = new Set(tokens).size - revoked.length;
    // Digests, never the tokens: an audit line is read by more people than may log in as a participant.
    d.audit.info('Tokens revoked', {
      by: who(ctx),
      reason,
      ...(userId ? { userId } : {}),
      revoked: revoked.map(loggableToken),
      alreadyRevoked,
    });
    return { revoked: revoked.length, alreadyRevoked };
  }

  /** The participant, if one of the caller's programs is theirs; any other is answered as unknown (404). */
  function participantSeenBy(scope: ProgramScope, userId: string) {
    const row = d.participants.get(userId);
    if (!row || !inScope(scope, row.program)) throw new NotFoundError(`no participant ${userId}`);
    return row;
  }

  /**
   * A list of tokens as the caller may see it: only those naming one of their programs; whole for operators, masked
   * and newest first by `time` for readers.
   */
  function tokensSeenBy<T extends { token: string }>(
    caller: { scope: ProgramScope; ctx: Parameters<typeof isOperator>[0] },
    rows: readonly T[],
    time: keyof T & string,
  ) {
    const visible = rows.filter((r) => inScope(caller.scope, d.programOfToken(r.token)));
    return { rows: isOperator(caller.ctx) ? visible : maskedNewestFirst(visible, time) };
  }

  return [
    route({
      method: 'get',
      path: '/admin/api/me',
      summary: 'The logged-in operator, their role, programs and CSRF token',
      programScoped: true,
      response: s.Me,
      handle: async ({ scope, ctx }) => {
        const { email, role, csrfToken } = ctx.state.operator;
        return { email, role, csrfToken, programs: scope ?? null, tileUrl: d.tileUrl };
      },
    }),
    route({
      method: 'get',
      path: '/admin/api/participants',
      summary: 'One page of participants, sorted and searched on the server',
      programScoped: true,
      query: s.ParticipantsQuery,
      response: s.ParticipantsPage,
      // Readers find a participant by uuid or whole token; only operators search inside tokens, since a substring
      // search answers, one character at a time, what the masked column hides.
      handle: ({ query, scope, ctx }) => d.participants.page(query, { searchTokens: isOperator(ctx), programs: scope }),
    }),
    route({
      method: 'post',
      path: '/admin/api/participants/:userId/reveal-token',
      summary: 'A participant’s whole token (audited)',
      operator: true,
      programScoped: true,
      params: s.DayParams.pick({ userId: true }),
      response: s.RevealedToken,
      handle: async ({ params, scope, ctx }) => {
        const row = participantSeenBy(scope, params.userId);
        d.audit.info('Token revealed', { by: who(ctx), userId: params.userId });
        return { token: row.token };
      },
    }),
    route({
      method: 'get',
      path: '/admin/api/users/:userId/days/:date',
      summary: 'A participant’s trips, sections and places of one local date',
      programScoped: true,
      params: s.DayParams,
      response: s.Day,
      handle: async ({ params, scope }) => {
        await d.scope.assertVisible(scope, params.userId);
        return d.days.day(params.userId, params.date);
      },
    }),
    route({
      method: 'get',
      path: '/admin/api/users/:userId/section-points',
      summary: 'The raw (filtered) locations between two times, for one section',
      programScoped: true,
      params: s.DayParams.pick({ userId: true }),
      query: s.SectionPointsQuery,
      response: s.SectionPoints,
      handle: async ({ params, query, scope }) => {
        await d.scope.assertVisible(scope, params.userId);
        return d.days.sectionPoints(params.userId, query.start, query.end);
      },
    }),
    route({
      method: 'get',
      path: '/admin/api/pipeline',
      summary: 'Consumer groups’ lag and progress, and participants whose trips lag their pushes',
      programScoped: true,
      response: s.Pipeline,
      // The consumer groups are the deployment's machinery, shown to all; the participants behind are per program.
      handle: async ({ scope }) => {
        const pipeline = await d.pipeline(scope);
        const users = pipeline.behind.users.map((u) => ({ ...u, token: maskToken(u.token) }));
        return { ...pipeline, behind: { ...pipeline.behind, users } };
      },
    }),
    route({
      method: 'get',
      path: '/admin/api/dead-letters/summary',
      summary: 'Dead letters counted by key and reason',
      programScoped: true,
      response: s.DeadLetterSummary,
      handle: ({ scope }) => d.deadLetters.summary(d.scope.filter(scope)),
    }),
    route({
      method: 'get',
      path: '/admin/api/dead-letters',
      summary: 'Dead letters with their entry and error',
      programScoped: true,
      query: s.DeadLettersQuery,
      response: s.DeadLetterList,
      handle: async ({ query, scope }) => ({ rows: await d.deadLetters.list(query, d.scope.filter(scope)) }),
    }),
    route({
      method: 'post',
      path: '/admin/api/dead-letters/replay',
      summary: 'Replay the selected dead letters (or all; a program’s admin: all of theirs) through the converter',
      operator: true,
      programScoped: true,
      body: s.ReplayRequest,
      response: s.Job,
      handle: async ({ body, scope, ctx }) => {
        const visible = d.scope.filter(scope);
        // A program's admin replays letters of their participants only: any other is refused as unknown (404).
        if (body.selection && scope !== undefined)
          for (const userId of new Set(body.selection.map((r) => r.userId))) await d.scope.assertVisible(scope, userId);
        const choice: LetterChoice = body.selection ? { selection: body.selection } : { all: true, visible };
        const total = body.selection?.length ?? (await d.deadLetters.summary(visible)).total;
        // Started first: a replay refused because another runs (409) is not audited as done.
        const job = d.jobs.start(
          'replay',
          async (p) => {
            try {
              return await d.replayLetters(choice, total, p);
            } finally {
              d.deadLetters.invalidate();
            }
          },
          scope,
        );
        d.audit.info('Dead letters replayed', {
          by: who(ctx),
          letters: body.selection ? body.selection.length : 'all',
          programs: describeScope(scope),
        });
        return job;
      },
    }),
    route({
      method: 'post',
      path: '/admin/api/dead-letters/replay-topic',
      summary: 'Replay the error-timeseries topic from a date or offset (dry run by default)',
      operator: true,
      body: s.TopicReplayRequest,
      response: s.Job,
      handle: async ({ body, ctx }) => {
        parseSinceOrThrow(body.since); // a 400 now, not a failed job
        const job = d.jobs.start('topic-replay', async (p) => {
          try {
            return await d.replayTopic(body, p);
          } finally {
            d.deadLetters.invalidate();
          }
        });
        if (!body.dryRun)
          d.audit.info('Dead-letter topic replayed', { by: who(ctx), since: body.since, key: body.key });
        return job;
      },
    }),
    route({
      method: 'post',
      path: '/admin/api/reset',
      summary: 'Rebuild a participant’s (or everyone’s) trips from a date: the plan with dryRun, else a job',
      operator: true,
      programScoped: true,
      body: s.ResetRequest,
      response: s.ResetPlan.or(s.Job),
      handle: async ({ body, scope, ctx }) => {
        // "Everyone" of a program's admin is every participant of their programs.
        const visible = d.scope.filter(scope);
        if (body.userId && scope !== undefined) await d.scope.assertVisible(scope, body.userId);
        if (body.dryRun) return d.resets.plan(body, visible);
        const job = d.jobs.start('reset', (p) => d.resets.run(body, p, visible), scope);
        d.audit.info('Reset', {
          by: who(ctx),
          userId: body.userId ?? 'everyone',
          from: body.from ?? 'start',
          programs: describeScope(scope),
        });
        return job;
      },
    }),
    route({
      method: 'get',
      path: '/admin/api/jobs/:jobId',
      summary: 'A replay’s or a reset’s progress',
      programScoped: true,
      params: s.JobParams,
      response: s.Job,
      handle: async ({ params, scope }) => d.jobs.get(params.jobId, scope),
    }),
    route({
      method: 'get',
      path: '/admin/api/summary',
      summary: 'Trips and active participants per day, distance by mode and by label',
      programScoped: true,
      query: s.SummaryQuery,
      response: s.Summary,
      handle: ({ query, scope }) => d.summary(query.days, scope),
    }),
    route({
      method: 'post',
      path: '/admin/api/tokens',
      summary: 'Create participant tokens, each with a QR code the app scans',
      operator: true,
      programScoped: true,
      body: s.TokenRequest,
      response: s.CreatedTokens,
      handle: async ({ body, scope, ctx }) => {
        if (!inScope(scope, body.program))
          throw new ForbiddenError(
            `tokens of program ${body.program}: you issue tokens of ${describeScope(scope)} only`,
          );
        const created = await d.tokens.create(body, who(ctx));
        d.audit.info('Tokens created', {
          by: who(ctx),
          program: body.program,
          subgroup: body.subgroup,
          tester: body.tester,
          count: body.count,
        });
        return created;
      },
    }),
    route({
      method: 'get',
      path: '/admin/api/tokens/refused',
      summary: 'Tokens phones tried and the server refused, recently',
      programScoped: true,
      response: s.RefusedTokens,
      // Refused tokens are often near misses of real ones, which is why readers see them masked too.
      handle: async (caller) => tokensSeenBy(caller, (await d.tokens.refused()).rows, 'lastTs'),
    }),
    route({
      method: 'post',
      path: '/admin/api/tokens/revoke',
      summary: 'Revoke tokens for good: the server refuses them from then on (audited)',
      operator: true,
      programScoped: true,
      body: s.RevokeRequest,
      response: s.Revoked,
      handle: async ({ body, scope, ctx }) => {
        const outside = body.tokens.filter((t) => !inScope(scope, d.programOfToken(t)));
        if (outside.length > 0)
          throw new ForbiddenError(
            `${outside.length} of the tokens name no program of yours: you revoke tokens of ${describeScope(scope)} only`,
          );
        return revoke(body.tokens, body.reason, ctx);
      },
    }),
    route({
      method: 'post',
      path: '/admin/api/participants/:userId/revoke-token',
      summary: 'Revoke a participant’s token for good; their data stays until deleted (audited)',
      operator: true,
      programScoped: true,
      params: s.DayParams.pick({ userId: true }),
      body: s.RevokeParticipantRequest,
      response: s.Revoked,
      handle: async ({ params, body, scope, ctx }) => {
        const row = participantSeenBy(scope, params.userId);
        return revoke([row.token], body.reason, ctx, params.userId);
      },
    }),
    route({
      method: 'get',
      path: '/admin/api/tokens/revoked',
      summary: 'Tokens operators revoked, most recent first',
      programScoped: true,
      response: s.RevokedTokens,
      handle: async (caller) => tokensSeenBy(caller, (await d.tokens.revoked()).rows, 'revokedTs'),
    }),
    ...programRoutes(d),
    ...radarRoutes(d),
    ...alertRoutes(d),
    ...qualityRoutes(d),
  ];
}
