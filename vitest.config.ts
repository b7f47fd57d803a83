import { defineConfig } from 'vitest/config';

// Two projects: `unit` is pure logic and needs no server; `integration` (*.int.test.ts) talks to real Kafka,
// Cassandra and the schema registry, found or started by test/helpers/global-setup.ts.
export default defineConfig({
  test: {
    globals: false,
    // Files run one after another: the machine has two cores and the three servers already use them.
    fileParallelism: false,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['{services,shared,deploy,test}/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/node_modules/**'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['{services,shared,deploy,test}/**/*.int.test.ts'],
          globalSetup: ['test/helpers/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
