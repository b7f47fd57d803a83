import { serverMain } from '../../shared/runtime/index.js';
import { createApp } from './app.js';
import { composeGateway } from './compose.js';
import { createWebLog } from './web-log.js';

// A broker's clean restart moves its partition leaderships away: a request in flight sees the connection close or
// "not leader", refreshes metadata and sends again. About 8 s of retries rides that out (the cluster suite's rolling
// restart); a broker down for longer answers 503. Puts retry on this schedule in shared/kafka/keyed-producer.ts, and
// kafka.ack_timeout_ms bounds the whole put; this is the same schedule for the kafkajs client (deletions, readiness).
const retries = { retry: { retries: 5, initialRetryTime: 300, maxRetryTime: 3000 } };

serverMain('gateway', retries, async ({ config, cassandra, kafka }) => {
  const gateway = composeGateway({ config, cassandra, kafka, webLog: createWebLog(config.log.web, config.log.level) });
  const { port, host, timeoutSeconds, auth } = config.webserver;
  const server = createApp(gateway.deps).listen(port, host);
  server.requestTimeout = timeoutSeconds * 1000;
  // Idle keep-alive connections stay open longer than clients and proxies keep theirs (nginx, load balancers: 60 s),
  // so the server never closes one at the instant a client reuses it: that race fails a request with a reset.
  server.keepAliveTimeout = 65_000;
  // Headers must arrive within this (a slow-headers client is dropped); above keepAliveTimeout, as Node requires.
  server.headersTimeout = 66_000;
  return {
    server,
    close: () => gateway.close(),
    banner: `Itinera gateway listening on http://${host}:${port} (auth ${auth})`,
  };
});
