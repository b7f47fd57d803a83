import { createCassandraClient } from '../../shared/cassandra/index.js';
import { loadConfig, refuseExposure } from '../../shared/config/index.js';
import { createKafka } from '../../shared/kafka/index.js';
import { createLogger } from '../../shared/logger/index.js';
import { stopOnSignals } from '../../shared/runtime/index.js';
import { createApp } from './app.js';
import { composeGateway } from './compose.js';
import { createWebLog } from './web-log.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ component: 'gateway', level: 'info' });
  refuseExposure(config, 'gateway', (line) => logger.warn(line));
  const cassandra = createCassandraClient({ ...config.cassandra });
  const kafka = createKafka({
    ...config.kafka,
    clientId: 'itinera-gateway',
    logger,
    // A broker's clean restart moves its partition leaderships away: a put in flight sees the connection close or
    // "not leader", refreshes metadata and sends again. About 8 s of retries rides that out (the cluster suite's
    // rolling restart); a broker down for longer answers 503, and kafka.ack_timeout_ms still bounds the whole put.
    retry: { retries: 5, initialRetryTime: 300, maxRetryTime: 3000 },
  });
  const gateway = composeGateway({ config, cassandra, kafka, webLog: createWebLog(config.log.web, config.log.level) });
  const server = createApp(gateway.deps).listen(config.webserver.port, config.webserver.host);
  server.requestTimeout = config.webserver.timeoutSeconds * 1000;
  // Idle keep-alive connections stay open longer than clients and proxies keep theirs (nginx, load balancers: 60 s),
  // so the server never closes one at the instant a client reuses it: that race fails a request with a reset.
  server.keepAliveTimeout = 65_000;
  // Headers must arrive within this (a slow-headers client is dropped); above keepAliveTimeout, as Node requires.
  server.headersTimeout = 66_000;
  process.stdout.write(
    `Itinera gateway listening on http://${config.webserver.host}:${config.webserver.port} (auth ${config.webserver.auth})\n`,
  );
  stopOnSignals(async (signal) => {
    logger.info('Stopping', { signal });
    server.close();
    await gateway.close();
    await cassandra.shutdown().catch(() => undefined);
  });
}

main().catch((err: unknown) => {
  console.error('gateway failed to start:', err);
  process.exit(1);
});
