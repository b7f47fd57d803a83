import { createIntakeLog } from '../../shared/logger/index.js';
import { workerMain } from '../../shared/runtime/worker-main.js';
import { createAvroCodec, createSchemaRegistry } from '../../shared/schema-registry/index.js';
import { createErrorTimeseries } from '../../shared/timeseries/index.js';
import { runConverter } from './run-converter.js';
import { createTimeseriesWriter } from './store/cassandra-timeseries-writer.js';

/** Usage: tsx services/converter/main.ts [worker number]. The number names the intake_<n>.log.gz file. */
workerMain('converter', ({ config, worker, logger, cql, kafka, onFatal }) =>
  runConverter(kafka, {
    codec: createAvroCodec(createSchemaRegistry(config.schemaRegistry.url)),
    timeseries: createTimeseriesWriter(cql),
    errors: createErrorTimeseries(cql),
    topicPrefix: config.kafka.topicPrefix,
    logger,
    intakeLog: createIntakeLog(config.log.intakeDir, worker),
    onFatal,
  }),
);
