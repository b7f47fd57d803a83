/**
 * The development OIDC provider as a process of its own (`npm start` runs it when console.oidc.dev_provider is
 * true): it listens where console.oidc.issuer points, and knows one client, the console, by its configured id and
 * secret, redirecting to `<public_url>/admin/callback`. See dev-provider.ts for who you can log in as.
 */
import { loadConfig } from '../../../shared/config/index.js';
import { ConfigError } from '../../../shared/errors/index.js';
import { stopOnSignals } from '../../../shared/runtime/index.js';
import { refuseDevelopmentSecrets } from '../auth/create-console-auth.js';
import { startDevOidcProvider } from './dev-provider.js';

async function main(): Promise<void> {
  const { console: consoleConfig } = loadConfig();
  const { oidc } = consoleConfig;
  if (!oidc.devProvider) {
    process.stderr.write('console.oidc.dev_provider is false: the development OIDC provider is not started\n');
    return;
  }
  // Whoever can reach it logs in as anyone: only ever on this machine's loopback address.
  refuseDevelopmentSecrets({ ...consoleConfig, sessionKeys: [], oidc: { ...oidc, clientSecret: '' } });
  const issuer = new URL(oidc.issuer);
  // The provider's issuer is exactly http://<host>:<port>; anything else would not match what the console expects.
  if (issuer.protocol !== 'http:' || issuer.pathname !== '/' || issuer.search !== '' || issuer.port === '')
    throw new ConfigError(`console.oidc.issuer must be http://<host>:<port> for the dev provider, got ${oidc.issuer}`);
  const provider = await startDevOidcProvider({
    port: Number(issuer.port),
    host: issuer.hostname,
    client: {
      clientId: oidc.clientId,
      clientSecret: oidc.clientSecret,
      redirectUris: [`${consoleConfig.publicUrl}/admin/callback`],
    },
  });
  process.stdout.write(`Itinera development OIDC provider listening on ${provider.issuer}\n`);
  stopOnSignals(() => provider.close());
}

main().catch((err: unknown) => {
  console.error('development OIDC provider failed to start:', err);
  process.exit(1);
});
