import type { Kafka } from 'kafkajs';
import { type CassandraClient, createCql } from '../../shared/cassandra/index.js';
import type { Config } from '../../shared/config/index.js';
import { topicName } from '../../shared/events/index.js';
import { createKeyedProducer } from '../../shared/kafka/index.js';
import { createAvroCodec, createSchemaRegistry } from '../../shared/schema-registry/index.js';
import { createTimeseriesReader } from '../../shared/timeseries/index.js';
import type { GatewayDeps } from './app.js';
import { createDependencyProbes } from './dependency-probes.js';
import { createPublisherPool, createUsercachePublisher } from './ingest/kafka-usercache-publisher.js';
import { createCassandraCustomLabelStore } from './store/cassandra-custom-label-store.js';
import { createCassandraDiaryReader } from './store/cassandra-diary-reader.js';
import { createCassandraDocumentReader } from './store/cassandra-document-store.js';
import { createPipelineStateReader } from './store/cassandra-pipeline-state-reader.js';
import {
  createConsoleTokensTable,
  createDeletedUsersTable,
  createProfilesTable,
  createProgramConfigsTable,
  createUsersTable,
} from '../../shared/tables/index.js';
import { createProgramDirectory } from '../../shared/programs/program-directory.js';
import { createProgramCohorts } from '../../shared/programs/program-cohorts.js';
import { createParticipantTokens } from '../../shared/programs/participant-tokens.js';
import { phonesMakeTokens } from '../../shared/programs/domain/deployment-config.js';
import { createLogger } from '../../shared/logger/index.js';
import { boundedDeletions, deleteUser } from '../deletion/delete-user.js';
import { createBoundedExports } from '../export/bounded-exports.js';
import { createPhoneExports } from '../export/phone-exports.js';
import { createExportSources } from '../export/store/cassandra-export-sources.js';
import { createUserErasure } from '../deletion/user-erasure.js';
import type { WebLog } from './web-log.js';
import { createRefusalLog } from './auth/refusal-log.js';
import { createRateLimits } from './rate-limits.js';

/** Kafka producers a gateway publishes puts through (see createPublisherPool). */
const PRODUCERS = 4;

export interface GatewayClients {
  config: Config;
  cassandra: CassandraClient;
  kafka: Kafka;
  webLog: WebLog;
  /** How long a put waits for Kafka's acknowledgement. @defaultValue config.kafka.ackTimeoutMs */
  sendTimeoutMs?: number;
}

export interface ComposedGateway {
  deps: GatewayDeps;
  /** Disconnects what composing opened (the producers, the readiness probes' clients); the caller's clients stay. */
  close(): Promise<void>;
}

/** The gateway's dependencies from its configuration and clients: what main.ts, the tests and the bench run. */
export function composeGateway({ config, cassandra, kafka, webLog, sendTimeoutMs }: GatewayClients): ComposedGateway {
  const cql = createCql(cassandra);
  const producers = Array.from({ length: PRODUCERS }, () =>
    createKeyedProducer({ ...config.kafka, clientId: 'itinera-gateway' }),
  );
  // Account deletions' tombstones for the diary topic go through a producer of their own, never behind a put's records.
  const erasureProducer = createKeyedProducer({ ...config.kafka, clientId: 'itinera-gateway' });
  const codec = createAvroCodec(createSchemaRegistry(config.schemaRegistry));
  const readiness = createDependencyProbes({ kafka, cassandra, registryUrl: config.schemaRegistry.url });
  const users = createUsersTable(cql, {
    cacheEntries: config.webserver.userCacheEntries,
    cacheTtlMs: config.webserver.userCacheTtlMs,
  });
  // A revocation reaches this gateway as a deletion does: within user_cache_ttl_s.
  const consoleTokens = createConsoleTokensTable(cql, { notRevokedTtlMs: config.webserver.userCacheTtlMs });
  const refusals = createRefusalLog(consoleTokens, {
    onError: (err) => webLog.warn(`a refused token was not recorded: ${String(err)}`),
  });
  const deletion = {
    users,
    deletedUsers: createDeletedUsersTable(cql),
    erase: createUserErasure({
      cql,
      producer: erasureProducer,
      diaryTopic: topicName(config.kafka.topicPrefix, 'diary'),
    }),
    audit: createLogger({ component: 'audit' }),
  };
  return {
    deps: {
      config,
      users,
      tokens: {
        isIssued: (token) => consoleTokens.isIssued(token),
        isRevoked: (token) => consoleTokens.isRevoked(token),
        refused: refusals.refused,
      },
      programs: createProgramDirectory(createProgramConfigsTable(cql), {
        refreshMs: config.webserver.programRefreshMs,
        onProblem: (message) => webLog.warn(message),
      }),
      cohorts: createProgramCohorts(users),
      joinTokens: {
        selfMade: phonesMakeTokens,
        make: async (program, subgroup, tester) => {
          const [made] = await createParticipantTokens({ program, subgroup, count: 1, tester });
          return made!;
        },
      },
      accounts: { delete: boundedDeletions((userId) => deleteUser(deletion, userId, 'user')) },
      rateLimits: createRateLimits(),
      profiles: createProfilesTable(cql),
      customLabels: createCassandraCustomLabelStore(cql),
      documents: createCassandraDocumentReader(cql),
      diary: createCassandraDiaryReader(cql),
      timeseries: createTimeseriesReader(cql),
      pipeline: createPipelineStateReader(cql),
      exports: createPhoneExports(createBoundedExports(createExportSources(cql))),
      publisher: createPublisherPool(
        producers.map((producer) =>
          createUsercachePublisher({
            producer,
            codec,
            topic: topicName(config.kafka.topicPrefix, 'usercache'),
            sendTimeoutMs: sendTimeoutMs ?? config.kafka.ackTimeoutMs,
          }),
        ),
      ),
      webLog,
      probes: readiness.probes,
    },
    async close() {
      refusals.close();
      await Promise.all([
        ...producers.map((p) => p.close().catch(() => undefined)),
        erasureProducer.close().catch(() => undefined),
      ]);
      await readiness.close().catch(() => undefined);
    },
  };
}
