import { serverMain } from '../../shared/runtime/index.js';
import { createConsoleApp } from './app.js';
import { composeConsole } from './compose.js';
import { consoleAssets } from './web-files.js';

serverMain('console', {}, async ({ config, cassandra, kafka }) => {
  // The pages and their bundles (from `npm run build`): a console without them stops here, not on a first visit.
  await consoleAssets();
  const consoleService = composeConsole({ config, cassandra, kafka });
  await consoleService.start();
  const { port, host, publicUrl, oidc } = config.console;
  return {
    server: createConsoleApp(consoleService.deps).listen(port, host),
    close: () => consoleService.close(),
    banner: `Itinera console on ${publicUrl}/admin/ (listening on ${host}:${port}; login through ${oidc.issuer})`,
  };
});
