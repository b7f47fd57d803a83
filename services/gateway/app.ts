import Koa from 'koa';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Config } from '../../shared/config/index.js';
import type { TimeseriesReader } from '../../shared/timeseries/index.js';
import type { GatewayState } from './gateway-state.js';
import type { UsercachePublisher } from './ingest/kafka-usercache-publisher.js';
import { callLog } from './middleware/call-log.js';
import { errorHandler } from './middleware/error-handler.js';
import { BodyBudget } from './middleware/body-budget.js';
import { parseJsonBody, readBody } from './middleware/json-body.js';
import { normalizePath } from './middleware/normalize-path.js';
import { putAdmission } from './middleware/put-admission.js';
import { routeMatch } from './middleware/route-match.js';
import { healthRoutes, type DependencyProbe } from './routes/health.js';
import { profileRoutes } from './routes/profile.js';
import { customLabelRoutes } from './routes/custom-labels.js';
import { resultRoutes } from './routes/results.js';
import { usercacheRoutes } from './routes/usercache.js';
import type { DocumentReader } from './store/cassandra-document-store.js';
import type { DiaryReader } from './store/cassandra-diary-reader.js';
import { metricsRoutes } from './routes/metrics.js';
import type { PipelineStateReader } from './store/cassandra-pipeline-state-reader.js';
import type { ProfileStore } from './store/cassandra-profile-store.js';
import type { CustomLabelStore } from './store/cassandra-custom-label-store.js';
import type { UserStore } from './store/cassandra-user-store.js';
import type { WebLog } from './web-log.js';

export interface GatewayDeps {
  config: Config;
  users: UserStore;
  profiles: ProfileStore;
  customLabels: CustomLabelStore;
  documents: DocumentReader;
  diary: DiaryReader;
  timeseries: TimeseriesReader;
  pipeline: PipelineStateReader;
  publisher: UsercachePublisher;
  webLog: WebLog;
  probes: Record<string, DependencyProbe>;
  /** Where START/END lines and exception stacks go. @defaultValue process.stdout */
  stdout?: NodeJS.WritableStream;
}

const PHONE_ROOTS = ['profile', 'usercache', 'timeline', 'pipeline', 'datastreams', 'result', 'customlabel'];
const MONITORING_PATHS = new Set(['/health', '/ready', '/metrics']);
/** The routes that carry phone data and take `body_limit_mb`; every other route takes `other_body_limit_kb`. */
const PUT_ROUTES: ReadonlySet<string> = new Set(['/usercache/put', '/usercache/putone']);

/** The phone API as a Koa app, not yet listening: main.ts listens on the configured port, tests on port 0. */
export function createApp(deps: GatewayDeps): Koa<GatewayState> {
  const stdout = deps.stdout ?? process.stdout;
  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics });
  const calls = new Histogram({
    name: 'itinera_gateway_call_seconds',
    help: 'Duration of phone API calls, in seconds',
    labelNames: ['path', 'status'],
    buckets: [0.005, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [metrics],
  });
  const accepted = new Counter({
    name: 'itinera_gateway_entries_accepted_total',
    help: 'Entries acknowledged by Kafka',
    registers: [metrics],
  });

  const identify = { auth: deps.config.webserver, users: deps.users };
  const routers = [
    healthRoutes({ probes: deps.probes, metrics }),
    profileRoutes({ ...identify, profiles: deps.profiles, pipeline: deps.pipeline, webLog: deps.webLog }),
    customLabelRoutes({ ...identify, labels: deps.customLabels }),
    usercacheRoutes({
      ...identify,
      publisher: deps.publisher,
      documents: deps.documents,
      webLog: deps.webLog,
      onAccepted: (n) => accepted.inc(n),
    }),
    resultRoutes({
      ...identify,
      diary: deps.diary,
      timeseries: deps.timeseries,
      pipeline: deps.pipeline,
      limits: deps.config.webserver,
    }),
    metricsRoutes({ ...identify, diary: deps.diary, limits: deps.config.webserver }),
  ];
  const web = deps.config.webserver;
  // The body budget is split so that puts, however many and large, never leave the other calls (a few KB each,
  // and how a phone learns its trips) without room: a quarter is theirs alone.
  const putBodies = new BodyBudget(Math.floor(web.bodyBudgetBytes * 0.75));
  const callBodies = new BodyBudget(web.bodyBudgetBytes - putBodies.limitBytes);
  new Gauge({
    name: 'itinera_gateway_body_bytes_held',
    help: 'Request body bytes the gateway holds, by budget (puts, other calls)',
    labelNames: ['budget'],
    registers: [metrics],
    collect() {
      this.set({ budget: 'puts' }, putBodies.heldBytes);
      this.set({ budget: 'calls' }, callBodies.heldBytes);
    },
  });

  const app = new Koa<GatewayState>();
  app.proxy = true;
  app.use(normalizePath({ knownRoots: PHONE_ROOTS }));
  const logged = callLog({ webLog: deps.webLog, stdout });
  app.use(async (ctx, next) => (MONITORING_PATHS.has(ctx.path) ? next() : logged(ctx, next)));
  app.use(async (ctx, next) => {
    const end = calls.startTimer();
    try {
      await next();
    } finally {
      // Route templates, never raw paths: a label per path sent would let any client grow the registry.
      end({ path: ctx.state.route ?? 'unmatched', status: String(ctx.status) });
    }
  });
  app.use(errorHandler({ stdout }));
  app.use(routeMatch({ routers }));
  app.use(
    readBody({
      boundsFor: (route) =>
        PUT_ROUTES.has(route)
          ? { limitBytes: web.bodyLimitBytes, budget: putBodies }
          : { limitBytes: web.otherBodyLimitBytes, budget: callBodies },
      idleTimeoutMs: web.bodyIdleTimeoutMs,
      minBytesPerSecond: web.bodyMinBytesPerSecond,
    }),
  );
  app.use(putAdmission({ maxConcurrent: web.maxConcurrentPuts, maxWaitingBytes: web.putQueueBytes }));
  app.use(parseJsonBody());
  for (const router of routers) app.use(router.routes());
  // Koa's default error listener prints to stderr; ours already printed the stack to stdout (the spec's place).
  app.on('error', () => undefined);
  return app;
}
