import { createIdempotentProducer } from '../../shared/kafka/index.js';
import { mkdtempSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createCql } from '../../shared/cassandra/index.js';
import { topicName } from '../../shared/events/index.js';
import { createSchemaRegistry, createAvroCodec } from '../../shared/schema-registry/index.js';
import { createTimeseriesReader } from '../../shared/timeseries/index.js';
import { createApp, type GatewayDeps } from '../../services/gateway/app.js';
import { createDependencyProbes } from '../../services/gateway/dependency-probes.js';
import { createUsercachePublisher } from '../../services/gateway/ingest/kafka-usercache-publisher.js';
import { createCassandraDocumentReader } from '../../services/gateway/store/cassandra-document-store.js';
import { createCassandraDiaryReader } from '../../services/gateway/store/cassandra-diary-reader.js';
import { createPipelineStateReader } from '../../services/gateway/store/cassandra-pipeline-state-reader.js';
import { createCassandraProfileStore } from '../../services/gateway/store/cassandra-profile-store.js';
import { createCassandraCustomLabelStore } from '../../services/gateway/store/cassandra-custom-label-store.js';
import { createCassandraUserStore } from '../../services/gateway/store/cassandra-user-store.js';
import { createWebLog } from '../../services/gateway/web-log.js';
import type { TestEnv } from './test-env.js';
import type { Kafka } from 'kafkajs';

export interface RunningGateway {
  url: string;
  /** Everything the gateway printed on its standard output so far. */
  stdout(): string[];
  /** Lines of webserver.log so far. */
  webLog(): string[];
  post(
    path: string,
    body: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

/** The real gateway, wired to the test environment's servers, listening on a free port. */
export async function startGateway(
  env: TestEnv,
  overrides: Partial<GatewayDeps> & { kafka?: Kafka } = {},
): Promise<RunningGateway> {
  const logDir = mkdtempSync(join(tmpdir(), 'itinera-weblog-'));
  const webLog = createWebLog(logDir, 'debug');
  const out = new PassThrough();
  const printed: string[] = [];
  out.on('data', (chunk: Buffer) => printed.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  const cql = createCql(env.cassandra);
  const producer = createIdempotentProducer(overrides.kafka ?? env.kafka);
  const codec = createAvroCodec(createSchemaRegistry(env.config.schemaRegistry.url));
  const readiness = createDependencyProbes({
    kafka: env.kafka,
    cassandra: env.cassandra,
    registryUrl: env.config.schemaRegistry.url,
  });
  const app = createApp({
    config: env.config,
    users: createCassandraUserStore(cql, { cacheEntries: env.config.webserver.userCacheEntries }),
    profiles: createCassandraProfileStore(cql),
    customLabels: createCassandraCustomLabelStore(cql),
    documents: createCassandraDocumentReader(cql),
    diary: createCassandraDiaryReader(cql),
    timeseries: createTimeseriesReader(cql),
    pipeline: createPipelineStateReader(cql),
    publisher: createUsercachePublisher({
      producer,
      codec,
      topic: topicName(env.config.kafka.topicPrefix, 'usercache'),
      sendTimeoutMs: 8000,
    }),
    webLog,
    probes: readiness.probes,
    stdout: out,
    ...overrides,
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    stdout: () => [...printed],
    webLog: () => {
      try {
        return readFileSync(join(logDir, 'webserver.log'), 'utf8').split('\n').filter(Boolean);
      } catch {
        return [];
      }
    },
    async post(path, body, headers = {}) {
      const res = await fetch(url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=UTF-8', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // left as text: the test asserts on it
      }
      return { status: res.status, body: parsed, headers: res.headers };
    },
    async close() {
      await new Promise((r) => server.close(r));
      await producer.disconnect().catch(() => undefined);
      await readiness.close().catch(() => undefined);
      webLog.close();
    },
  };
}
