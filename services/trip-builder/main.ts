import { createIntakeLog } from '../../shared/logger/index.js';
import { workerMain } from '../../shared/runtime/worker-main.js';
import { composeTripBuilderStores } from './compose.js';
import { runTripBuilder } from './run-trip-builder.js';

/** Usage: node dist/services/trip-builder/main.js [worker number]. The number names the intake_<n>-trips.log.gz file. */
workerMain('trip-builder', ({ config, worker, cql, clients, common }) =>
  runTripBuilder(clients, {
    ...common,
    ...composeTripBuilderStores(cql, common.topicPrefix),
    pipelineLog: createIntakeLog(config.log.intake, worker, 'info', 'trips'),
    now: () => Date.now() / 1000,
  }),
);
