import { createIntakeLog } from '../../shared/logger/index.js';
import { workerMain } from '../../shared/runtime/worker-main.js';
import { createAvroCodec, createSchemaRegistry } from '../../shared/schema-registry/index.js';
import { composeConverterStores } from './compose.js';
import { runConverter } from './run-converter.js';

/** Usage: node dist/services/converter/main.js [worker number]. The number names the intake_<n>.log.gz file. */
workerMain('converter', ({ config, worker, logger, cql, kafka, onFatal }) =>
  runConverter(kafka, {
    codec: createAvroCodec(createSchemaRegistry(config.schemaRegistry)),
    ...composeConverterStores(cql, config.kafka.topicPrefix),
    topicPrefix: config.kafka.topicPrefix,
    logger,
    intakeLog: createIntakeLog(config.log.intake, worker),
    onFatal,
  }),
);
