import { createIntakeLog } from '../../shared/logger/index.js';
import { workerMain } from '../../shared/runtime/worker-main.js';
import { createAvroCodec, createSchemaRegistry } from '../../shared/schema-registry/index.js';
import { createErrorTimeseries, createTimeseriesReader } from '../../shared/timeseries/index.js';
import { runTripBuilder } from './run-trip-builder.js';
import { createCassandraTripStore } from './store/cassandra-trip-store.js';
import { createUsercacheDocuments } from './store/cassandra-usercache-documents.js';

/** Usage: tsx services/trip-builder/main.ts [worker number]. The number names the intake_<n>-trips.log.gz file. */
workerMain('trip-builder', ({ config, worker, logger, cql, kafka, onFatal }) =>
  runTripBuilder(kafka, {
    codec: createAvroCodec(createSchemaRegistry(config.schemaRegistry.url)),
    timeseries: createTimeseriesReader(cql),
    trips: createCassandraTripStore(cql),
    documents: createUsercacheDocuments(cql),
    errors: createErrorTimeseries(cql),
    topicPrefix: config.kafka.topicPrefix,
    logger,
    pipelineLog: createIntakeLog(config.log.intakeDir, worker, 'info', 'trips'),
    now: () => Date.now() / 1000,
    onFatal,
  }),
);
