import { defineConfig } from 'vitest/config';

const INTEGRATION = '{services,shared,deploy,test}/**/*.int.test.ts';
/**
 * Files that load or stop the servers themselves, so they run alone: the outage tests start a Kafka broker or a
 * Cassandra node of their own (another JVM on the two cores) and stop it mid-stream; the request storm sends 10,000
 * requests eight at a time and holds that none is answered 5xx, which a Cassandra starved by another file beside it
 * would turn into honest 503s.
 */
const EXCLUSIVE = [
  'test/faults/kafka-outage.int.test.ts',
  'test/faults/cassandra-outage.int.test.ts',
  'test/bad-input/request-storm.int.test.ts',
];

/** One fast-check seed per run, printed, replayable with FC_SEED=<n> (see the module). */
const seeded = {
  globalSetup: ['test/helpers/fast-check-seed.ts'],
  setupFiles: ['test/helpers/fast-check-seed.ts'],
};

const servers = {
  globalSetup: ['test/helpers/global-setup.ts', ...seeded.globalSetup],
  setupFiles: seeded.setupFiles,
  testTimeout: 120_000,
  hookTimeout: 180_000,
};

// Three projects, run one group after another (sequence.groupOrder):
// - `unit`: pure logic, no server; files in parallel on every core.
// - `integration` (*.int.test.ts): real Kafka, Cassandra and schema registry, found or started by
//   test/helpers/global-setup.ts. Every file has a keyspace and topic prefix of its own (the keyspace one an earlier
//   file left and emptied), so two run at once: most of their time is spent waiting on the servers (group joins,
//   commits, polls), not computing.
// - `exclusive`: the files that load or stop servers (EXCLUSIVE); one at a time, last.
export default defineConfig({
  test: {
    globals: false,
    // Two files at a time (vitest 3 sets this for the whole run; the exclusive project runs its files in one fork).
    maxWorkers: 2,
    minWorkers: 1,
    // Only the unit project runs on threads: its files share workers.
    poolOptions: { threads: { isolate: false } },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['{services,shared,deploy,test}/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/node_modules/**'],
          // A hang bound, not a speed check: the slowest unit file reads megabytes of real days, seconds on a
          // loaded machine.
          testTimeout: 60_000,
          // Pure files share their worker threads (and the modules they load) instead of a fresh process each (the
          // threads pool's isolation is set at the root, below). Integration files keep a process each (forks, the
          // default), which the keyspace pool relies on (test/helpers/keyspace-pool.ts).
          pool: 'threads',
          isolate: false,
          sequence: { groupOrder: 0 },
          ...seeded,
        },
      },
      {
        test: {
          name: 'integration',
          include: [INTEGRATION],
          exclude: [...EXCLUSIVE, '**/node_modules/**'],
          sequence: { groupOrder: 1 },
          ...servers,
        },
      },
      {
        test: {
          name: 'exclusive',
          include: EXCLUSIVE,
          poolOptions: { forks: { singleFork: true } },
          sequence: { groupOrder: 2 },
          ...servers,
        },
      },
    ],
  },
});
