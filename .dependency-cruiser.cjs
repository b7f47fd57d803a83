/**
 * The import rules of the house, checked in CI by `npm run lint` (dependency-cruiser):
 * - no import cycle anywhere, type-only imports included;
 * - a service imports another service only from a composition root (`services/<name>/compose.ts`,
 *   `services/<name>/main.ts`, `services/all-in-one.ts`, the CLI), so each service keeps to its room and the wiring
 *   is the one place that knows them all;
 * - shared/ serves the services and never imports one.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle, type-only ones included: split the shared part into a module both import.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'services-keep-to-their-rooms',
      severity: 'error',
      comment:
        'A service imports another only from a composition root (compose.ts, main.ts, all-in-one.ts, cli/). ' +
        'Move what both need to shared/, or let the composition root pass it in.',
      from: {
        path: '^services/([^/]+)/',
        pathNot: ['^services/[^/]+/(compose|main)\\.ts$', '^services/cli/', '\\.test\\.ts$'],
      },
      to: { path: '^services/([^/]+)/', pathNot: '^services/$1/' },
    },
    {
      name: 'shared-imports-no-service',
      severity: 'error',
      comment: 'shared/ holds clients, adapters, records and tables; it never depends on a service.',
      from: { path: '^shared/', pathNot: '\\.test\\.ts$' },
      to: { path: '^services/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^node_modules', '^dist/', '^\\.infra/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
