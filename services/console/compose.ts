import type { Kafka } from 'kafkajs';
import type { CassandraClient } from '../../shared/cassandra/index.js';
import { createCql } from '../../shared/cassandra/index.js';
import type { Config } from '../../shared/config/index.js';
import { topicName } from '../../shared/events/index.js';
import { createIdempotentProducer } from '../../shared/kafka/index.js';
import { createLogger } from '../../shared/logger/index.js';
import { createAvroCodec, createSchemaRegistry } from '../../shared/schema-registry/index.js';
import {
  createCompositeEntriesTable,
  createConsoleTokensTable,
  createLabelTripMetricsTable,
  createParticipantActivityTable,
  createSectionMetricsTable,
  createTripLabelCountsTable,
  createUsersTable,
} from '../../shared/tables/index.js';
import { createErrorTimeseries, createTimeseriesReader } from '../../shared/timeseries/index.js';
import { replayDeadLetterTopic } from '../converter/replay-dead-letter-topic.js';
import { createCassandraProfileStore } from '../gateway/store/cassandra-profile-store.js';
import { composeTripBuilderStores } from '../trip-builder/compose.js';
import { createDiaryPublisher } from '../trip-builder/diary-publisher.js';
import { scanResumePoints } from '../trip-builder/store/cassandra-trip-store.js';
import { createLetterReplays } from './actions/replay-letters.js';
import { createUserResets } from './actions/reset-users.js';
import { parseSinceOrThrow, topicReplayLines } from './actions/topic-replay-lines.js';
import { consoleRoutes } from './api/console-routes.js';
import { createConsoleAuth } from './auth/index.js';
import { createDeadLetterView } from './dead-letters/dead-letter-view.js';
import { createDayReader } from './day/day-reader.js';
import { createJobRegistry } from './jobs/job-registry.js';
import { createParticipantIndex } from './participants/participant-index.js';
import { createBehindUsersTracker } from './pipeline/behind-users.js';
import { createPipelineMonitor, PIPELINE_GROUPS } from './pipeline/pipeline-monitor.js';
import { createSummaryCache } from './summary/summary-cache.js';
import { createProgramSummary } from './summary/program-summary.js';
import { createParticipantTokens } from '../programs/participant-tokens.js';
import type { ConsoleDeps } from './app.js';

/** Rows one program summary reads at most (trips plus sections). */
const SUMMARY_MAX_ROWS = 2_000_000;

export interface ConsoleClients {
  config: Config;
  cassandra: CassandraClient;
  kafka: Kafka;
}

export interface ComposedConsole {
  deps: ConsoleDeps;
  /** Loads the participant index and starts the background samplers; the console answers only after it. */
  start(): Promise<void>;
  /** Rebuilds the participant index now (its timer does it every participants_refresh_s). */
  refreshParticipants(): Promise<void>;
  close(): Promise<void>;
}

/** The console's dependencies from its configuration and clients: what main.ts, the tests and the bench run. */
export function composeConsole({ config, cassandra, kafka }: ConsoleClients): ComposedConsole {
  const cql = createCql(cassandra);
  const logger = createLogger({ component: 'console', level: 'info' });
  const audit = createLogger({ component: 'audit' });
  const codec = createAvroCodec(createSchemaRegistry(config.schemaRegistry));
  const producer = createIdempotentProducer(kafka);
  const admin = kafka.admin();
  const prefix = config.kafka.topicPrefix;
  const errors = createErrorTimeseries(cql);
  const activity = createParticipantActivityTable(cql);
  const users = createUsersTable(cql);
  const labelCounts = createTripLabelCountsTable(cql);
  const profiles = createCassandraProfileStore(cql);
  const tokensTable = createConsoleTokensTable(cql);

  // The dead-letter list names each letter's participant by token (the index); the index counts each participant's
  // dead letters (the dead-letter tally): each reads the other lazily.
  let tokenOf: (userId: string) => string | undefined = () => undefined;
  const deadLetters = createDeadLetterView({ errors, tokenOf: (id) => tokenOf(id) });
  const index = createParticipantIndex({
    users: () => users.all({ pageSize: 5000 }),
    activity: () => activity.all(),
    errorsByUser: () => deadLetters.byUser(),
    profile: (id) => profiles.get(id),
    logger,
    refreshSeconds: config.console.participantsRefreshSeconds,
  });
  tokenOf = (id) => index.get(id)?.token;
  const monitor = createPipelineMonitor({
    admin,
    topicPrefix: prefix,
    groups: PIPELINE_GROUPS,
    stalledMinutes: config.console.stalledMinutes,
    onError: (err) => logger.warn('Pipeline sample failed', { error: String(err) }),
  });
  const behind = createBehindUsersTracker({
    scan: () => scanResumePoints(cql),
    lastPushOf: (id) => index.get(id)?.lastPush,
    behindHours: config.console.behindHours,
  });
  /** Starts a resume-point scan unless one is recent (the tracker decides); requests read its last answer. */
  const refreshBehind = () =>
    void behind.refresh().catch((err: unknown) => logger.warn('Resume-point scan failed', { error: String(err) }));
  const rebuildStores = composeTripBuilderStores(cql);
  const summary = createSummaryCache(
    createProgramSummary(
      { labelTrips: createLabelTripMetricsTable(cql), sections: createSectionMetricsTable(cql) },
      { maxRows: SUMMARY_MAX_ROWS },
    ),
  );

  const routes = consoleRoutes({
    tileUrl: config.console.tileUrl,
    participants: index,
    days: createDayReader({
      composites: createCompositeEntriesTable(cql),
      labelCounts,
      timeseries: createTimeseriesReader(cql),
    }),
    async pipeline() {
      refreshBehind();
      const groups = monitor.snapshot();
      const b = behind.current();
      return {
        sampledAt: groups.sampledAt ?? 0,
        stalledMinutes: groups.stalledMinutes,
        groups: groups.groups,
        behind: {
          thresholdHours: config.console.behindHours,
          count: b?.count ?? 0,
          users: (b?.users ?? []).map((u) => ({ ...u, token: index.get(u.userId)?.token ?? u.userId })),
        },
      };
    },
    deadLetters,
    replayLetters: createLetterReplays({ errors, producer, admin, codec, topicPrefix: prefix }),
    replayTopic: async (request, p) =>
      topicReplayLines(
        await replayDeadLetterTopic(
          { kafka, admin, producer, codec, topicPrefix: prefix, onProgress: (done, total) => p.progress(done, total) },
          { since: parseSinceOrThrow(request.since), key: request.key, reason: request.reason, dryRun: request.dryRun },
        ),
      ),
    resets: createUserResets({
      rebuild: {
        ...rebuildStores,
        pipelineLog: createLogger({ component: 'console-reset', level: 'warn' }),
        now: () => Date.now() / 1000,
        publishDocument: createDiaryPublisher({ producer, codec, topic: topicName(prefix, 'diary') }),
      },
      everyone: () => index.all(),
    }),
    summary: (days) => summary(days),
    tokens: {
      async create(request, by) {
        const created = await createParticipantTokens(request);
        await tokensTable.issue(
          created.map((t) => t.token),
          request.program,
          request.subgroup,
          by,
        );
        return { tokens: created };
      },
      async refused() {
        return { rows: await tokensTable.listRefused(7) };
      },
    },
    jobs: createJobRegistry(logger),
    audit,
  });

  return {
    deps: {
      config: config.console,
      auth: createConsoleAuth({ config: config.console, audit, log: logger }),
      routes,
    },
    async start() {
      await Promise.all([producer.connect(), admin.connect()]);
      await index.start();
      monitor.start();
      // The first resume-point scan now, so the pipeline page's first answer already lists who is behind.
      refreshBehind();
    },
    refreshParticipants: () => index.refresh(),
    async close() {
      index.stop();
      await monitor.stop();
      await Promise.all([producer.disconnect(), admin.disconnect()]);
    },
  };
}
