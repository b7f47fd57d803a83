import { defineConfig } from 'vitest/config';

// The cluster fault suite (`npm run test:cluster`), apart from `npm test`: it runs on the local three-node cluster
// (deploy/local/cluster.ts), which test/cluster/global-setup.ts brings up or reuses, and kills its servers.
export default defineConfig({
  test: {
    globals: false,
    include: ['test/cluster/**/*.cluster.ts'],
    globalSetup: ['test/cluster/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 3 * 3600_000,
    hookTimeout: 600_000,
  },
});
