import type { z } from 'zod';
import { NotFoundError } from '../../../shared/errors/index.js';
import type { Logger } from '../../../shared/logger/index.js';
import type { createUserResets } from '../actions/reset-users.js';
import type { DeadLetterView } from '../dead-letters/dead-letter-view.js';
import type { DayReader } from '../day/day-reader.js';
import type { JobProgress, JobRegistry } from '../jobs/job-registry.js';
import type { ParticipantIndex } from '../participants/participant-index.js';
import { maskToken } from '../participants/query-participants.js';
import { parseSinceOrThrow } from '../actions/topic-replay-lines.js';
import { route, type ConsoleRoute } from './route-table.js';
import * as s from './schemas.js';

export interface ConsoleApiDeps {
  tileUrl: string;
  participants: ParticipantIndex;
  days: DayReader;
  pipeline: () => Promise<z.infer<typeof s.Pipeline>>;
  deadLetters: DeadLetterView;
  replayLetters: (
    selection: z.infer<typeof s.DeadLetterRef>[] | undefined,
    total: number,
    p: JobProgress,
  ) => Promise<string[]>;
  replayTopic: (request: z.infer<typeof s.TopicReplayRequest>, p: JobProgress) => Promise<string[]>;
  resets: ReturnType<typeof createUserResets>;
  summary: (days: number) => Promise<z.infer<typeof s.Summary>>;
  tokens: {
    create(request: z.infer<typeof s.TokenRequest>, by: string): Promise<z.infer<typeof s.CreatedTokens>>;
    refused(): Promise<z.infer<typeof s.RefusedTokens>>;
  };
  jobs: JobRegistry;
  /** Who did what destructive thing, when: one JSON line per action (no participant data beyond a uuid). */
  audit: Logger;
}

const who = (ctx: { state: { operator?: { email: string } } }) => ctx.state.operator?.email ?? 'unknown';
const isOperator = (ctx: { state: { operator?: { role: string } } }) => ctx.state.operator?.role === 'operator';

/** Every endpoint of the console's JSON API (the pages' data, and the operators' actions). */
export function consoleRoutes(d: ConsoleApiDeps): ConsoleRoute[] {
  return [
    route({
      method: 'get',
      path: '/admin/api/me',
      summary: 'The logged-in operator, their role and CSRF token',
      response: s.Me,
      handle: async ({ ctx }) => ({ ...ctx.state.operator, tileUrl: d.tileUrl }),
    }),
    route({
      method: 'get',
      path: '/admin/api/participants',
      summary: 'One page of participants, sorted and searched on the server',
      query: s.ParticipantsQuery,
      response: s.ParticipantsPage,
      // Readers find a participant by uuid or whole token; only operators search inside tokens, since a substring
      // search answers, one character at a time, what the masked column hides.
      handle: ({ query, ctx }) => d.participants.page(query, { searchTokens: isOperator(ctx) }),
    }),
    route({
      method: 'post',
      path: '/admin/api/participants/:userId/reveal-token',
      summary: 'A participant’s whole token (audited)',
      operator: true,
      params: s.DayParams.pick({ userId: true }),
      response: s.RevealedToken,
      handle: async ({ params, ctx }) => {
        const row = d.participants.get(params.userId);
        if (!row) throw new NotFoundError(`no participant ${params.userId}`);
        d.audit.info('Token revealed', { by: who(ctx), userId: params.userId });
        return { token: row.token };
      },
    }),
    route({
      method: 'get',
      path: '/admin/api/users/:userId/days/:date',
      summary: 'A participant’s trips, sections and places of one local date',
      params: s.DayParams,
      response: s.Day,
      handle: ({ params }) => d.days.day(params.userId, params.date),
    }),
    route({
      method: 'get',
      path: '/admin/api/users/:userId/section-points',
      summary: 'The raw (filtered) locations between two times, for one section',
      params: s.DayParams.pick({ userId: true }),
      query: s.SectionPointsQuery,
      response: s.SectionPoints,
      handle: ({ params, query }) => d.days.sectionPoints(params.userId, query.start, query.end),
    }),
    route({
      method: 'get',
      path: '/admin/api/pipeline',
      summary: 'Consumer groups’ lag and progress, and participants whose trips lag their pushes',
      response: s.Pipeline,
      handle: async () => {
        const pipeline = await d.pipeline();
        const users = pipeline.behind.users.map((u) => ({ ...u, token: maskToken(u.token) }));
        return { ...pipeline, behind: { ...pipeline.behind, users } };
      },
    }),
    route({
      method: 'get',
      path: '/admin/api/dead-letters/summary',
      summary: 'Dead letters counted by key and reason',
      response: s.DeadLetterSummary,
      handle: () => d.deadLetters.summary(),
    }),
    route({
      method: 'get',
      path: '/admin/api/dead-letters',
      summary: 'Dead letters with their entry and error',
      query: s.DeadLettersQuery,
      response: s.DeadLetterList,
      handle: async ({ query }) => ({ rows: await d.deadLetters.list(query) }),
    }),
    route({
      method: 'post',
      path: '/admin/api/dead-letters/replay',
      summary: 'Replay the selected dead letters (or all) through the converter',
      operator: true,
      body: s.ReplayRequest,
      response: s.Job,
      handle: async ({ body, ctx }) => {
        const total = body.selection?.length ?? (await d.deadLetters.summary()).total;
        // Started first: a replay refused because another runs (409) is not audited as done.
        const job = d.jobs.start('replay', async (p) => {
          try {
            return await d.replayLetters(body.selection, total, p);
          } finally {
            d.deadLetters.invalidate();
          }
        });
        d.audit.info('Dead letters replayed', {
          by: who(ctx),
          letters: body.selection ? body.selection.length : 'all',
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
      body: s.ResetRequest,
      response: s.ResetPlan.or(s.Job),
      handle: async ({ body, ctx }) => {
        if (body.dryRun) return d.resets.plan(body);
        const job = d.jobs.start('reset', (p) => d.resets.run(body, p));
        d.audit.info('Reset', { by: who(ctx), userId: body.userId ?? 'everyone', from: body.from ?? 'start' });
        return job;
      },
    }),
    route({
      method: 'get',
      path: '/admin/api/jobs/:jobId',
      summary: 'A replay’s or a reset’s progress',
      params: s.JobParams,
      response: s.Job,
      handle: async ({ params }) => d.jobs.get(params.jobId),
    }),
    route({
      method: 'get',
      path: '/admin/api/summary',
      summary: 'Trips and active participants per day, distance by mode and by label',
      query: s.SummaryQuery,
      response: s.Summary,
      handle: ({ query }) => d.summary(query.days),
    }),
    route({
      method: 'post',
      path: '/admin/api/tokens',
      summary: 'Create participant tokens, each with a QR code the app scans',
      operator: true,
      body: s.TokenRequest,
      response: s.CreatedTokens,
      handle: async ({ body, ctx }) => {
        d.audit.info('Tokens created', { by: who(ctx), program: body.program, count: body.count });
        return d.tokens.create(body, who(ctx));
      },
    }),
    route({
      method: 'get',
      path: '/admin/api/tokens/refused',
      summary: 'Tokens phones tried and the server refused, recently',
      response: s.RefusedTokens,
      // Refused tokens are often near misses of real ones: whole for operators, masked for readers.
      handle: async ({ ctx }) => {
        const refused = await d.tokens.refused();
        if (isOperator(ctx)) return refused;
        return { rows: refused.rows.map((r) => ({ ...r, token: maskToken(r.token) })) };
      },
    }),
  ];
}
