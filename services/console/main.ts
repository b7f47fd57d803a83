import { createCassandraClient } from '../../shared/cassandra/index.js';
import { loadConfig, refuseExposure } from '../../shared/config/index.js';
import { createKafka } from '../../shared/kafka/index.js';
import { createLogger } from '../../shared/logger/index.js';
import { stopOnSignals } from '../../shared/runtime/index.js';
import { createConsoleApp } from './app.js';
import { composeConsole } from './compose.js';
import { consoleAssets } from './web-files.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ component: 'console', level: 'info' });
  refuseExposure(config, 'console', (line) => logger.warn(line));
  const cassandra = createCassandraClient({ ...config.cassandra });
  const kafka = createKafka({ ...config.kafka, clientId: 'itinera-console', logger });
  // The pages and their bundles (from `npm run build`): a console without them stops here, not on a first visit.
  await consoleAssets();
  const consoleService = composeConsole({ config, cassandra, kafka });
  await consoleService.start();
  const server = createConsoleApp(consoleService.deps).listen(config.console.port, config.console.host);
  process.stdout.write(
    `Itinera console on ${config.console.publicUrl}/admin/ (listening on ${config.console.host}:${config.console.port}; login through ${config.console.oidc.issuer})\n`,
  );
  stopOnSignals(async (signal) => {
    logger.info('Stopping', { signal });
    server.close();
    await consoleService.close();
    await cassandra.shutdown().catch(() => undefined);
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`console failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
