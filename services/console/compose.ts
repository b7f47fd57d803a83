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
  createProfilesTable,
  createProgramConfigsTable,
  createSectionMetricsTable,
  createTripLabelCountsTable,
  createUsersTable,
  type ProgramConfigRow,
} from '../../shared/tables/index.js';
import { createErrorTimeseries, createTimeseriesReader } from '../../shared/timeseries/index.js';
import { replayDeadLetterTopic } from '../converter/replay-dead-letter-topic.js';
import { admitToken } from '../programs/domain/admit-token.js';
import type { DeploymentConfig } from '../programs/domain/deployment-config.js';
import { cohortOf } from '../programs/domain/opcode.js';
import { createProgramManager } from '../programs/manage-programs.js';
import { createProgramParticipants } from '../programs/program-participants.js';
import { createCassandraEndedSessions } from './auth/ended-sessions.js';
import { createParticipantTokens, newToken } from '../programs/participant-tokens.js';
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
import { createParticipantScope } from './scope/participant-scope.js';
import { inScope, scopeKey } from './scope/program-scope.js';
import { createTokenIssuer } from './tokens/issue-tokens.js';
import type { ConsoleDeps } from './app.js';

/** Rows one program summary reads at most (trips plus sections). */
const SUMMARY_MAX_ROWS = 2_000_000;

/** The programs as saved, as the gateway's admission reads them (every document passed the schema when saved). */
function servedPrograms(rows: readonly ProgramConfigRow[]) {
  return new Map(
    rows.map((r) => [r.program, { program: r.program, config: JSON.parse(r.document) as DeploymentConfig }]),
  );
}

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
  const profiles = createProfilesTable(cql);
  const tokensTable = createConsoleTokensTable(cql);
  const listed = new Set(config.webserver.tokenList);
  const programManager = createProgramManager(createProgramConfigsTable(cql), {
    participants: createProgramParticipants(users, async (t) => listed.has(t) || (await tokensTable.isIssued(t))),
  });
  const programOf = (token: string) => cohortOf(token).program;

  // The dead-letter list names each letter's participant by token (the index); the index counts each participant's
  // dead letters (the dead-letter tally): each reads the other lazily.
  let tokenOf: (userId: string) => string | undefined = () => undefined;
  const deadLetters = createDeadLetterView({ errors, tokenOf: (id) => tokenOf(id) });
  const index = createParticipantIndex({
    users: () => users.all({ pageSize: 5000 }),
    activity: () => activity.all(),
    errorsByUser: () => deadLetters.byUser(),
    profile: (id) => profiles.get(id),
    programOf,
    logger,
    refreshSeconds: config.console.participantsRefreshSeconds,
  });
  tokenOf = (id) => index.get(id)?.token;
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
    scan: () => scanResumePoints(cql),
    lastPushOf: (id) => index.get(id)?.lastPush,
    programOf: (id) => index.get(id)?.program ?? null,
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
    scope: participantScope,
    programOfToken: programOf,
    days: createDayReader({
      composites: createCompositeEntriesTable(cql),
      labelCounts,
      timeseries: createTimeseriesReader(cql),
    }),
    async pipeline(scope) {
      refreshBehind();
      const groups = monitor.snapshot();
      const b = behind.current(scope === undefined ? undefined : (program) => inScope(scope, program));
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
    summary: (days, scope) => summary(days, scopeKey(scope), participantScope.filter(scope)),
    tokens: {
      create: createTokenIssuer({
        // The gateway's own rule, on the programs as saved now (not a directory's copy seconds old: a program just
        // created on the Programs page takes tokens at once).
        admission: async ({ program, subgroup, tester }) =>
          admitToken(newToken(program, subgroup, tester), servedPrograms(await programManager.list())),
        generate: (request) => createParticipantTokens(request),
        record: (tokens, program, subgroup, by) => tokensTable.issue(tokens, program, subgroup, by),
      }),
      async refused() {
        return { rows: await tokensTable.listRefused(7) };
      },
      revoke: (tokens, by, reason) => tokensTable.revoke(tokens, by, reason),
      async revoked() {
        return { rows: await tokensTable.listRevoked() };
      },
    },
    programs: programManager,
    jobs: createJobRegistry(logger),
    audit,
  });

  return {
    deps: {
      config: config.console,
      auth: createConsoleAuth({ config: config.console, audit, log: logger, ended: createCassandraEndedSessions(cql) }),
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
