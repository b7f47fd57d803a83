import type { Config } from '../../shared/config/index.js';
import { createConsoleApp } from '../../services/console/app.js';
import { composeConsole, type ComposedConsole } from '../../services/console/compose.js';
import { startDevOidcProvider } from '../../services/console/dev-oidc/dev-provider.js';
import { consoleAssets } from '../../services/console/web-files.js';
import { freePort } from './free-port.js';
import type { TestEnv } from './test-env.js';

export interface RunningConsole {
  url: string;
  composed: ComposedConsole;
  close(): Promise<void>;
}

/** The real console and the development OIDC provider, on the test environment's servers, on free ports. */
export async function startConsole(env: TestEnv): Promise<RunningConsole> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const provider = await startDevOidcProvider({
    port: 0,
    host: '127.0.0.1',
    client: {
      clientId: env.config.console.oidc.clientId,
      clientSecret: env.config.console.oidc.clientSecret,
      redirectUris: [`${url}/admin/callback`],
    },
  });
  const config: Config = {
    ...env.config,
    console: {
      ...env.config.console,
      port,
      publicUrl: url,
      oidc: { ...env.config.console.oidc, issuer: provider.issuer },
    },
  };
  await consoleAssets();
  const composed = composeConsole({ config, cassandra: env.cassandra, kafka: env.kafka });
  await composed.start();
  const server = createConsoleApp(composed.deps).listen(port, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return {
    url,
    composed,
    async close() {
      server.close();
      await composed.close();
      await provider.close();
    },
  };
}
