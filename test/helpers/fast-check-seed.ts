import fc from 'fast-check';

/**
 * One fast-check seed for a whole test run, so that any property that fails can be replayed with
 * `FC_SEED=<n> npm test`. The module is listed twice in the vitest config. As a global setup it runs once, in the
 * main process. There its body picks the seed (FC_SEED, or a random one) and writes it to FC_SEED, and the test
 * workers inherit that variable. `setup` then prints the seed. As a setup file it runs in each test file's worker,
 * and its body hands the inherited seed to fast-check. fast-check's own failure message names the seed as well.
 */

function seedFrom(given: string | undefined): number {
  if (given === undefined) return Math.floor(Math.random() * 0x7fffffff);
  const seed = Number(given);
  // fast-check runs on a 32-bit seed: anything else would silently be replayed as some other seed.
  if ((seed | 0) !== seed) throw new Error(`FC_SEED must be a 32-bit integer, not "${given}"`);
  return seed;
}

const seed = seedFrom(process.env['FC_SEED']);
process.env['FC_SEED'] = String(seed);
fc.configureGlobal({ seed });

/** Global setup: prints the run's seed. Each project runs its own global setup, so a flag keeps it to one line. */
export function setup(): void {
  if (process.env['FC_SEED_PRINTED']) return;
  process.env['FC_SEED_PRINTED'] = '1';
  console.log(`fast-check seed ${seed}; replay this run's properties with FC_SEED=${seed} npm test`);
}
