/**
 * `npm run build` (after tsc): the console pages' bundles into dist/services/console/web-bundles/, which the
 * compiled console serves (web-bundle.ts). Run as `node dist/services/console/build-web.js`.
 */
import { prebuiltDir, writeWebBundles } from './web-bundle.js';

writeWebBundles()
  .then((bundles) => {
    const kb = Math.round(bundles.reduce((sum, b) => sum + b.code.length, 0) / 1024);
    process.stdout.write(`console: ${bundles.length} page bundles (${kb} kB) in ${prebuiltDir}\n`);
  })
  .catch((err: unknown) => {
    process.stderr.write(
      `console: building the page bundles failed: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    process.exit(1);
  });
