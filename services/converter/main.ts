import { createIntakeLog } from '../../shared/logger/index.js';
import { workerMain } from '../../shared/runtime/worker-main.js';
import { composeConverterStores } from './compose.js';
import { runConverter } from './run-converter.js';

/** Usage: node dist/services/converter/main.js [worker number]. The number names the intake_<n>.log.gz file. */
workerMain('converter', ({ config, worker, cql, clients, common }) =>
  runConverter(clients, {
    ...common,
    ...composeConverterStores(cql, common.topicPrefix),
    intakeLog: createIntakeLog(config.log.intake, worker),
  }),
);
