import type { Kafka } from 'kafkajs';
import type { CassandraClient } from '../../shared/cassandra/index.js';
import { createCql } from '../../shared/cassandra/index.js';
import type { Config } from '../../shared/config/index.js';
import type { OperatorActions } from '../../shared/operations/operator-actions.js';
import { topicName } from '../../shared/events/index.js';
import { createKeyedProducer } from '../../shared/kafka/index.js';
import { createLogger } from '../../shared/logger/index.js';
import { createAvroCodec, createSchemaRegistry } from '../../shared/schema-registry/index.js';
import {
  createConsoleTokensTable,
  createTripBuilderStateTable,
  createUsersTable,
  openTables,
} from '../../shared/tables/index.js';
import { createErrorTimeseries, createTimeseriesReader } from '../../shared/timeseries/index.js';
import { converterOperatorActions } from '../converter/operator-actions.js';
import { cohortOf } from '../../shared/programs/domain/opcode.js';
import { createProgramManager } from '../../shared/programs/manage-programs.js';
import { createProgramParticipants } from '../../shared/programs/program-participants.js';
import { createCassandraEndedSessions } from './auth/ended-sessions.js';
import { composeTripBuilderStores } from '../trip-builder/compose.js';
import { createDiaryPublisher } from '../trip-builder/diary-publisher.js';
import { tripBuilderOperatorActions } from '../trip-builder/operator-actions.js';
import { createLetterReplays } from './actions/replay-letters.js';
import { composeAlerts } from './alerts/compose-alerts.js';
import { createUserResets } from './actions/reset-users.js';
import { parseSinceOrThrow, topicReplayLines } from './actions/topic-replay-lines.js';
import { consoleRoutes } from './api/console-routes.js';
import { createConsoleAuth } from './auth/index.js';
import { createDeadLetterView } from './dead-letters/dead-letter-view.js';
import { createDayReader } from './day/day-reader.js';
import { createDayQualityReader } from '../../shared/quality/day-quality.js';
import { MAX_QUALITY_DAYS } from './quality/quality-schemas.js';
import { createJobRegistry } from './jobs/job-registry.js';
import { createParticipantIndex } from './participants/participant-index.js';
import { createBehindUsersTracker } from './pipeline/behind-users.js';
import { createPipelineMonitor, PIPELINE_GROUPS } from './pipeline/pipeline-monitor.js';
import { createPipelineView } from './pipeline/pipeline-view.js';
import { createSummaryCache } from './summary/summary-cache.js';
import { createProgramSummary } from './summary/program-summary.js';
import { createParticipantScope } from './scope/participant-scope.js';
import { scopeKey } from './scope/program-scope.js';
import { createTokenActions } from './tokens/token-actions.js';
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
  const producer = createKeyedProducer({ ...config.kafka, clientId: 'itinera-console' });
  const admin = kafka.admin();
  const prefix = config.kafka.topicPrefix;
  const errors = createErrorTimeseries(cql);
  const tables = openTables(cql);
  const users = createUsersTable(cql);
  const tokensTable = createConsoleTokensTable(cql);
  const listed = new Set(config.webserver.tokenList);
  const programManager = createProgramManager(tables.programConfigs, {
    participants: createProgramParticipants(users, async (t) => listed.has(t) || (await tokensTable.isIssued(t))),
  });
  const programOf = (token: string) => cohortOf(token).program;

  const tokenOf = (userId: string) => index.get(userId)?.token;
  // The dead-letter list names each letter's participant by token (the index, read only once both exist); the index
  // counts each participant's dead letters.
  const deadLetters = createDeadLetterView({ errors, tokenOf });
  const index = createParticipantIndex({
    users: () => users.all({ pageSize: 5000 }),
    activity: () => tables.activity.all(),
    errorsByUser: () => deadLetters.byUser(),
    profile: (id) => tables.profiles.get(id),
    programOf,
    logger,
    refreshSeconds: config.console.participantsRefreshSeconds,
  });
  const quality = createDayQualityReader(tables, { maxDays: MAX_QUALITY_DAYS });
  const alerts = composeAlerts({ config, cql, participants: index, quality, logger });
  const participantScope = createParticipantScope({
    indexed: (id) => index.get(id),
    async lookup(id) {
      const user = await users.findByUuid(id);
      return user && { program: programOf(user.userEmail) ?? null };
    },
  });
  const monitor = createPipelineMonitor({
    admin,
    topicPrefix: prefix,
    groups: PIPELINE_GROUPS,
    stalledMinutes: config.console.stalledMinutes,
    onError: (err) => logger.warn('Pipeline sample failed', { error: String(err) }),
  });
  const behind = createBehindUsersTracker({
    scan: () => createTripBuilderStateTable(cql).scan(),
    lastPushOf: (id) => index.get(id)?.lastPush,
    programOf: (id) => index.get(id)?.program ?? null,
    behindHours: config.console.behindHours,
  });
  const pipeline = createPipelineView({
    monitor,
    behind,
    behindHours: config.console.behindHours,
    tokenOf,
    onScanError: (err) => logger.warn('Resume-point scan failed', { error: String(err) }),
  });
  const actions: OperatorActions = {
    ...converterOperatorActions({ kafka, admin, producer, codec, topicPrefix: prefix }),
    ...tripBuilderOperatorActions({
      ...composeTripBuilderStores(cql),
      pipelineLog: createLogger({ component: 'console-reset', level: 'warn' }),
      now: () => Date.now() / 1000,
      publishDocument: createDiaryPublisher({ producer, codec, topic: topicName(prefix, 'diary') }),
    }),
  };
  const summary = createSummaryCache(
    createProgramSummary(
      { labelTrips: tables.labelMetrics, sections: tables.sectionMetrics },
      { maxRows: SUMMARY_MAX_ROWS },
    ),
  );

  const routes = consoleRoutes({
    tileUrl: config.console.tileUrl,
    participants: index,
    scope: participantScope,
    programOfToken: programOf,
    quality,
    days: createDayReader({
      composites: tables.compositeEntries,
      labelCounts: tables.labelCounts,
      timeseries: createTimeseriesReader(cql),
    }),
    pipeline: (scope) => pipeline.answer(scope),
    deadLetters,
    replayLetters: createLetterReplays({ errors, actions }),
    replayTopic: async (request, p) =>
      topicReplayLines(
        await actions.replayDeadLetterTopic(
          { since: parseSinceOrThrow(request.since), key: request.key, reason: request.reason, dryRun: request.dryRun },
          (done, total) => p.progress(done, total),
        ),
      ),
    resets: createUserResets({ actions, everyone: () => index.all() }),
    summary: (days, scope) => summary(days, scopeKey(scope), participantScope.filter(scope)),
    tokens: createTokenActions({ table: tokensTable, programs: () => programManager.list() }),
    programs: programManager,
    jobs: createJobRegistry(logger),
    audit,
    alerts: alerts.log,
  });

  return {
    deps: {
      config: config.console,
      auth: createConsoleAuth({ config: config.console, audit, log: logger, ended: createCassandraEndedSessions(cql) }),
      routes,
    },
    async start() {
      await admin.connect();
      await index.start();
      monitor.start();
      alerts.start();
      // The first resume-point scan now, so the pipeline page's first answer already lists who is behind.
      pipeline.refresh();
    },
    refreshParticipants: () => index.refresh(),
    async close() {
      index.stop();
      await alerts.stop();
      await monitor.stop();
      await Promise.all([producer.close(), admin.disconnect()]);
    },
  };
}
