import Koa from 'koa';
import type { Config } from '../../shared/config/index.js';
import type { TimeseriesReader } from '../../shared/timeseries/index.js';
import type { GatewayState } from './gateway-state.js';
import type { UsercachePublisher } from './ingest/kafka-usercache-publisher.js';
import { callLog } from './middleware/call-log.js';
import { errorHandler } from '../../shared/http/index.js';
import { BodyBudget } from './middleware/body-budget.js';
import { limitBody } from './middleware/body-limits.js';
import type { RateLimits } from './rate-limits.js';
import { parseJsonBody } from './middleware/json-body.js';
import { normalizePath } from './middleware/normalize-path.js';
import { gatewayMetrics } from './middleware/prometheus.js';
import { isPutRoute } from './middleware/put-body.js';
import { putPath } from './middleware/put-path.js';
import { routeMatch } from './middleware/route-match.js';
import { healthRoutes, type DependencyProbe } from './routes/health.js';
import { profileRoutes } from './routes/profile.js';
import { customLabelRoutes } from './routes/custom-labels.js';
import { exportRoutes } from './routes/export.js';
import { resultRoutes } from './routes/results.js';
import { usercacheRoutes } from './routes/usercache.js';
import { metricsRoutes } from './routes/metrics.js';
import { programRoutes } from './routes/programs.js';
import { joinRoutes } from './routes/join.js';
import { publicDashboardRoutes } from './public/public-routes.js';
import { openApiRoutes } from './api/openapi-route.js';
import type {
  AccountDeletion,
  CustomLabelStore,
  DiaryReader,
  DocumentReader,
  PipelineStateReader,
  ProfileStore,
  JoinTokens,
  ProgramCohorts,
  ProgramGate,
  UserExports,
} from './stores.js';
import type { UserStore } from '../../shared/tables/users.js';
import type { TokenChecks } from './auth/resolve-token.js';
import type { WebLog } from './web-log.js';

export interface GatewayDeps {
  config: Config;
  users: UserStore;
  /** Tokens the console issued (accepted in token_list mode) and the record of refused ones. */
  tokens: TokenChecks;
  /** The programs the deployment serves (tokens, put replies, configurations). */
  programs: ProgramGate;
  /** Which program each participant belongs to (aggregates count the caller's program only). */
  cohorts: ProgramCohorts;
  /** Tokens made for a program's join page. */
  joinTokens: JoinTokens;
  profiles: ProfileStore;
  customLabels: CustomLabelStore;
  documents: DocumentReader;
  diary: DiaryReader;
  timeseries: TimeseriesReader;
  pipeline: PipelineStateReader;
  publisher: UsercachePublisher;
  accounts: AccountDeletion;
  /** Users' downloads of their own data (`/export/:format`), a few at a time. */
  exports: UserExports;
  /** Allowances per address and token for registration, deletion and export. */
  rateLimits: RateLimits;
  webLog: WebLog;
  probes: Record<string, DependencyProbe>;
  /** Where START/END lines and exception stacks go. @defaultValue process.stdout */
  stdout?: NodeJS.WritableStream;
}

const PHONE_ROOTS = [
  'profile',
  'usercache',
  'timeline',
  'pipeline',
  'datastreams',
  'result',
  'customlabel',
  'export',
  'programs',
  'join',
  'public',
];
/** What probes, Prometheus and API tools read: no START/END lines, which are the phone calls' log. */
const MONITORING_PATHS = new Set(['/health', '/ready', '/metrics', '/openapi.json']);

/**
 * The phone API as a Koa app, not yet listening: main.ts listens on the configured port, tests on port 0.
 *
 * A call passes, in order: path normalization, the START/END lines, the Prometheus timer, the error handler, the
 * route match (404 and 405 before any body is read), the body's bounds (limit, budget, pace), then for a put its
 * admission, its bytes and its own JSON parse, for any other call @koa/bodyparser, and finally the route.
 */
export function createApp(deps: GatewayDeps): Koa<GatewayState> {
  const stdout = deps.stdout ?? process.stdout;
  const web = deps.config.webserver;
  // The body budget is split so that puts, however many and large, never leave the other calls (a few KB each,
  // and how a phone learns its trips) without room: a quarter is theirs alone.
  const putBodies = new BodyBudget(Math.floor(web.bodyBudgetBytes * 0.75));
  const callBodies = new BodyBudget(web.bodyBudgetBytes - putBodies.limitBytes);
  const metrics = gatewayMetrics({ bodyBudgets: { puts: putBodies, calls: callBodies } });

  const identify = { auth: web, users: deps.users, tokens: deps.tokens, programs: deps.programs };
  const routers = [
    healthRoutes({ probes: deps.probes, metrics: metrics.registry }),
    profileRoutes({
      ...identify,
      profiles: deps.profiles,
      pipeline: deps.pipeline,
      webLog: deps.webLog,
      accounts: deps.accounts,
      rateLimits: deps.rateLimits,
    }),
    customLabelRoutes({ ...identify, labels: deps.customLabels }),
    usercacheRoutes({
      ...identify,
      publisher: deps.publisher,
      documents: deps.documents,
      webLog: deps.webLog,
      onAccepted: metrics.entriesAccepted,
      onIgnored: metrics.entriesIgnored,
    }),
    resultRoutes({ ...identify, diary: deps.diary, timeseries: deps.timeseries, pipeline: deps.pipeline, limits: web }),
    metricsRoutes({ ...identify, diary: deps.diary, limits: web, cohorts: deps.cohorts }),
    exportRoutes({
      ...identify,
      exports: deps.exports,
      rateLimits: deps.rateLimits,
      idleTimeoutMs: web.exportIdleTimeoutMs,
    }),
    programRoutes({ programs: deps.programs }),
    joinRoutes({ programs: deps.programs, joinTokens: deps.joinTokens }),
    publicDashboardRoutes({
      programs: deps.programs,
      cohorts: deps.cohorts,
      diary: deps.diary,
      users: deps.users,
      rules: web,
    }),
    openApiRoutes(),
  ];

  const app = new Koa<GatewayState>();
  app.proxy = true;
  // The client's address is the one the nearest proxy saw (the last X-Forwarded-For entry), which a client cannot
  // forge by sending a header of its own through that proxy.
  app.maxIpsCount = 1;
  app.use(normalizePath({ knownRoots: PHONE_ROOTS }));
  const logged = callLog({ webLog: deps.webLog, stdout });
  app.use(async (ctx, next) => (MONITORING_PATHS.has(ctx.path) ? next() : logged(ctx, next)));
  app.use(metrics.timeCalls);
  app.use(errorHandler({ stdout }));
  app.use(routeMatch({ routers }));
  const boundsFor = (route: string) =>
    isPutRoute(route)
      ? { limitBytes: web.bodyLimitBytes, budget: putBodies }
      : { limitBytes: web.otherBodyLimitBytes, budget: callBodies };
  app.use(
    limitBody({
      boundsFor,
      scansDepth: (route) => !isPutRoute(route),
      idleTimeoutMs: web.bodyIdleTimeoutMs,
      minBytesPerSecond: web.bodyMinBytesPerSecond,
    }),
  );
  const puts = putPath({
    maxConcurrent: web.maxConcurrentPuts,
    maxActiveBytes: web.putActiveBytes,
    maxWaitingBytes: web.putQueueBytes,
  });
  for (const step of puts) app.use(step);
  app.use(parseJsonBody({ limitFor: (route) => boundsFor(route).limitBytes }));
  for (const router of routers) app.use(router.routes());
  // Koa's default error listener prints to stderr; ours already printed the stack to stdout (the spec's place).
  app.on('error', () => undefined);
  return app;
}
