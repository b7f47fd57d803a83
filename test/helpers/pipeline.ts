import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createIntakeLog } from '../../shared/logger/intake-log.js';
import { createErrorTimeseries, createTimeseriesReader } from '../../shared/timeseries/index.js';
import type { ConverterDeps } from '../../services/converter/handler.js';
import { runConverter, type RunningConverter } from '../../services/converter/run-converter.js';
import { createTimeseriesWriter } from '../../services/converter/store/cassandra-timeseries-writer.js';
import { runTripBuilder, type RunningTripBuilder } from '../../services/trip-builder/run-trip-builder.js';
import { createCassandraTripStore } from '../../services/trip-builder/store/cassandra-trip-store.js';
import { createUsercacheDocuments } from '../../services/trip-builder/store/cassandra-usercache-documents.js';
import type { TestEnv } from './test-env.js';

const intakeDir = mkdtempSync(join(tmpdir(), 'itinera-intake-'));

/** A converter worker on the test environment's servers, in this process; `convert` replaces the rules. */
export function startConverter(env: TestEnv, convert?: ConverterDeps['convert']): Promise<RunningConverter> {
  return runConverter(env.kafka, {
    codec: env.codec,
    timeseries: createTimeseriesWriter(env.cql),
    errors: createErrorTimeseries(env.cql),
    topicPrefix: env.config.kafka.topicPrefix,
    logger: env.logger,
    intakeLog: createIntakeLog(intakeDir, 0),
    ...(convert ? { convert } : {}),
  });
}

/** A trip-builder worker on the test environment's servers, in this process. */
export function startTripBuilder(env: TestEnv, worker = 0): Promise<RunningTripBuilder> {
  return runTripBuilder(env.kafka, {
    codec: env.codec,
    timeseries: createTimeseriesReader(env.cql),
    trips: createCassandraTripStore(env.cql),
    documents: createUsercacheDocuments(env.cql),
    topicPrefix: env.config.kafka.topicPrefix,
    logger: env.logger,
    pipelineLog: createIntakeLog(intakeDir, worker, 'info', 'trips'),
    now: () => Date.now() / 1000,
  });
}

export function intakeLogDir(): string {
  return intakeDir;
}
