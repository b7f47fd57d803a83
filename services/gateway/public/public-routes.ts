import Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import type { AggregateCallAuth, AuthMethod } from '../../../shared/config/index.js';
import { NotFoundError } from '../../../shared/errors/index.js';
import type { ServedConfig } from '../../../shared/programs/domain/admit-token.js';
import type { UserStore } from '../../../shared/tables/users.js';
import { utcDate } from '../domain/dashboard-weeks.js';
import { aggregateCallAuthInForce } from '../domain/metrics-history.js';
import { type DashboardSettings, publicDashboardSettings } from '../domain/public-dashboard-settings.js';
import type { GatewayState } from '../gateway-state.js';
import type { DiaryReader, ProgramCohorts, ProgramGate } from '../stores.js';
import { createAnswerCache } from './answer-cache.js';
import { DASHBOARD_ASSETS, dashboardFiles, type WebFile } from './dashboard-files.js';
import { type AggregateLimits, programAggregates } from './program-aggregates.js';

export interface PublicDashboardDeps {
  programs: ProgramGate;
  cohorts: ProgramCohorts;
  diary: DiaryReader;
  users: Pick<UserStore, 'findByUuid'>;
  /** The deployment's auth and aggregate rules (`webserver` of the configuration). */
  rules: AggregateLimits & { auth: AuthMethod; host: string; aggregateCallAuth: AggregateCallAuth };
  /** How long a program's figures are served before they are read again. @defaultValue 300000 (5 minutes) */
  cacheMs?: number;
  now?: () => number;
}

/** The page's only sources are this gateway's own script, stylesheet and figures (and its empty `data:` icon). */
const PAGE_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src data:; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const YEAR = 'public, max-age=31536000, immutable';

/** One answer for a program without a dashboard and for no program at all: the page tells no program's existence. */
const noDashboard = () => new NotFoundError('no public dashboard here');

/** Answers a file held in memory: 304 when the browser holds this version already. */
function answerFile(
  ctx: ParameterizedContext<GatewayState>,
  file: Pick<WebFile, 'body' | 'type' | 'etag'>,
  cacheControl: string,
): void {
  ctx.set('Cache-Control', cacheControl);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.etag = file.etag;
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.type = file.type;
  ctx.body = file.body;
}

/**
 * `GET /public/<program>/`: a page anyone may read with charts of the program's aggregates, and
 * `GET /public/<program>/aggregates.json`, the figures it draws (docs/public-dashboards.md). The figures are the
 * group comparisons' (same tables, same k rule, same history rule, the program's participants only), by week, and
 * are computed at most once per program per `cacheMs`: `Cache-Control` says how long they hold.
 *
 * A program whose configuration turns its dashboard off (or its `public_aggregates`), a program the deployment
 * does not serve, and any program where aggregates are not served at all (`aggregate_call_auth` in force is
 * `never`) get the same 404.
 */
export function publicDashboardRoutes(deps: PublicDashboardDeps): Router<GatewayState> {
  const router = new Router<GatewayState>();
  const cacheMs = deps.cacheMs ?? 300_000;
  const now = deps.now ?? Date.now;
  const cache = createAnswerCache({ ttlMs: cacheMs, now });
  const sources = {
    diary: deps.diary,
    cohorts: deps.cohorts,
    limits: deps.rules,
    accountCreated: async (userId: string) => {
      const user = await deps.users.findByUuid(userId);
      return user ? user.createTs.getTime() / 1000 : undefined;
    },
  };

  async function dashboardOf(program: string): Promise<{ served: ServedConfig; settings: DashboardSettings }> {
    const { auth, host, aggregateCallAuth } = deps.rules;
    if (aggregateCallAuthInForce(auth, host, aggregateCallAuth) === 'never') throw noDashboard();
    const served = await deps.programs.config(program);
    const settings = served && publicDashboardSettings(served.config, utcDate(now()));
    if (!served || !settings) throw noDashboard();
    return { served, settings };
  }

  router.get('/public/:program/', async (ctx) => {
    await dashboardOf(ctx.params['program'] ?? '');
    answerFile(ctx, (await dashboardFiles()).page, `public, max-age=${Math.round(cacheMs / 1000)}`);
    ctx.set('Content-Security-Policy', PAGE_POLICY);
    ctx.set('Referrer-Policy', 'no-referrer');
  });

  router.get('/public/:program/aggregates.json', async (ctx) => {
    const { served, settings } = await dashboardOf(ctx.params['program'] ?? '');
    // The variant: a new configuration (sections, label options) or a new day shows at once, not after the TTL.
    const variant = `${served.config.version}/${settings.endDate}`;
    const answer = await cache.get(served.program, variant, async () =>
      JSON.stringify(await programAggregates(sources, served, settings, now())),
    );
    const maxAge = Math.max(0, Math.ceil((answer.expiresAtMs - now()) / 1000));
    ctx.set('Access-Control-Allow-Origin', '*');
    answerFile(ctx, { ...answer, type: 'application/json; charset=utf-8' }, `public, max-age=${maxAge}`);
  });

  for (const name of DASHBOARD_ASSETS)
    router.get(`/public/${name}`, async (ctx) => {
      const file = (await dashboardFiles()).assets.get(name)!;
      // Asked for with its current version (as the page names it): a year. Otherwise the browser checks its ETag.
      answerFile(ctx, file, ctx.query['v'] === file.version ? YEAR : 'no-cache');
    });

  return router;
}
